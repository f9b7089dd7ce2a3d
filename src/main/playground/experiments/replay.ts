// An experiment replayed from an earlier one (docs/playground-api.md, "Datasets and
// experiments", `replay`; D-91): each case's turns are answered from the same case's runs
// (same case id and repeat, turn by turn) of the earlier experiment.
import type { ReplayMismatch } from '../../../shared/recordings.ts';
import { PlaygroundError } from '../errors.ts';
import type { PlaygroundStore } from '../store/store.ts';
import type { ExperimentStore } from './store.ts';

export interface ExperimentReplay {
  /** The earlier experiment's hidden session of each `case_id#repeat`. */
  sessions: Map<string, string>;
  on_mismatch: ReplayMismatch;
}

/** The sessions of an earlier experiment's cases (404 when the experiment is unknown). */
export function replaySessions(experiments: ExperimentStore, from: string, onMismatch: ReplayMismatch): ExperimentReplay {
  if (!experiments.get(from)) throw new PlaygroundError('not_found', `no experiment ${from}`, { experiment_id: from });
  const sessions = new Map<string, string>();
  for (const c of experiments.allCases(from)) if (c.session_id) sessions.set(`${c.case_id}#${c.repeat}`, c.session_id);
  return { sessions, on_mismatch: onMismatch };
}

/** The earlier experiment's runs of a case, oldest first (turn i answers turn i). */
export function replayRuns(store: PlaygroundStore, replay: ExperimentReplay | undefined, caseKey: string): string[] {
  const session = replay?.sessions.get(caseKey);
  if (!session) return [];
  return store
    .listRuns(session, { limit: 1000, before: null, search: null })
    .items.map((r) => r.run_id)
    .sort();
}
