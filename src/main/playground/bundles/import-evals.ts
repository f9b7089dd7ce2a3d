// The optional bundle keys `datasets` and `experiments` on import (docs/playground-api.md,
// "POST /bundles/import"; docs/evaluation.md, "Sharing"): their relations are checked with
// the rest of the bundle before anything is written; a dataset goes into the project's
// `evals/` under its name when no such file exists or the file has the same content, else
// under the first free `<name>-imported[-N]` (the author's file is never overwritten); an
// experiment gets a new id, its cases name their runs and sessions by the import's new ids,
// and it arrives finished (one exported while running arrives `cancelled`,
// `exported_while_running`), marked imported and never changed again.
import type { DatasetImport } from '../../../shared/bundle-evals.ts';
import type { ParsedBundle } from '../../../shared/bundle.ts';
import { ACTIVE_STATES, type RunStatus, type ScoreEntry } from '../../../shared/playground.ts';
import { DatasetNameSchema } from '../../../shared/datasets.ts';
import { datasetFile, datasetHash } from '../evals/dataset-file.ts';
import type { DatasetService } from '../experiments/datasets.ts';
import { newExperimentId } from '../experiments/runner.ts';
import type { ExperimentRecord, ExperimentStore, ImportedCase } from '../experiments/store.ts';

type Add = (path: string, message: string) => void;

/** Every relation of the datasets and experiments; problems go to `add` (RFC 6901 paths). */
export function checkEvals(b: ParsedBundle, add: Add): void {
  const names = new Set<string>();
  (b.datasets ?? []).forEach((d, i) => {
    if (names.has(d.name)) add(`/datasets/${i}/name`, `dataset '${d.name}' appears twice`);
    names.add(d.name);
    if (datasetHash(d.text) !== d.hash) add(`/datasets/${i}/hash`, 'the text does not hash to it (sha256 of its UTF-8 bytes)');
  });
  const sessions = new Set(b.sessions.map((s) => s.session_id));
  const runSession = new Map(b.runs.map((r) => [r.run_id, r.session_id]));
  const ids = new Set<string>();
  const owner = new Map<string, string>();
  (b.experiments ?? []).forEach((e, i) => {
    const at = `/experiments/${i}`;
    if (ids.has(e.experiment_id)) add(`${at}/experiment_id`, `experiment '${e.experiment_id}' appears twice`);
    ids.add(e.experiment_id);
    const own = new Set(e.session_ids);
    e.session_ids.forEach((s, j) => {
      if (!sessions.has(s)) add(`${at}/session_ids/${j}`, `session '${s}' is not in the bundle`);
      else if (owner.has(s) && owner.get(s) !== e.experiment_id) add(`${at}/session_ids/${j}`, `session '${s}' belongs to experiment '${owner.get(s)}' too`);
      owner.set(s, e.experiment_id);
    });
    e.cases.forEach((c, k) => {
      if (c.session_id !== null && !own.has(c.session_id))
        add(`${at}/cases/${k}/session_id`, `session '${c.session_id}' is not one of the experiment's session_ids`);
      if (c.run_id === null) return;
      const runsIn = runSession.get(c.run_id);
      if (runsIn === undefined) add(`${at}/cases/${k}/run_id`, `run '${c.run_id}' is not in the bundle`);
      else if (runsIn !== c.session_id) add(`${at}/cases/${k}/run_id`, `run '${c.run_id}' belongs to session '${runsIn}', not the case's session`);
    });
  });
}

const IMPORTED = '-imported';

/** For a clash: the first `<name>-imported`, `-imported-2`, ... that holds the same text
 * (an earlier import of it: nothing to write) or is free. */
function clashName(name: string, text: string, planned: Set<string>, datasets: DatasetService): { as: string; same: boolean } {
  const base = name.slice(0, 80);
  for (let n = 1; ; n += 1) {
    const candidate = `${base}${IMPORTED}${n === 1 ? '' : `-${n}`}`;
    if (!DatasetNameSchema.safeParse(candidate).success || planned.has(candidate)) continue;
    const existing = datasets.text(candidate);
    if (existing === undefined || existing === text) return { as: candidate, same: existing === text };
  }
}

/** What the import does with each dataset of the bundle, in bundle order. */
export function planDatasets(b: ParsedBundle, datasets: DatasetService): DatasetImport[] {
  const planned = new Set<string>();
  return (b.datasets ?? []).map((d) => {
    const existing = datasets.text(d.name);
    let action: DatasetImport['action'];
    let as = d.name;
    if (existing === undefined && !planned.has(d.name)) action = 'create';
    else if (existing === d.text) action = 'identical';
    else {
      const clash = clashName(d.name, d.text, planned, datasets);
      as = clash.as;
      action = clash.same ? 'identical' : 'renamed';
    }
    planned.add(as);
    return { name: d.name, action, as, file: datasetFile(as) };
  });
}

/** Writes the datasets the plan creates (through the save path); answers the names written,
 * which the caller removes again if the rest of the import fails. */
export async function writeDatasets(b: ParsedBundle, plan: DatasetImport[], datasets: DatasetService): Promise<string[]> {
  const written: string[] = [];
  try {
    for (const [i, p] of plan.entries()) {
      if (p.action === 'identical') continue;
      await datasets.write(p.as, b.datasets![i]!.text);
      written.push(p.as);
    }
  } catch (err) {
    for (const name of written) datasets.removeFile(name);
    throw err;
  }
  return written;
}

export interface EvalIds {
  sessions: Record<string, string>;
  runs: Record<string, string>;
  project: string | null;
  now: string;
}

const active = (s: RunStatus | null) => s !== null && ACTIVE_STATES.includes(s);

/** Inserts the bundle's experiments (inside the import's transaction); answers old id -> new. */
export function insertExperiments(b: ParsedBundle, plan: DatasetImport[], store: ExperimentStore, ids: EvalIds): Record<string, string> {
  const renamed = new Map(plan.map((p) => [p.name, p.as]));
  const mapping: Record<string, string> = {};
  for (const e of [...(b.experiments ?? [])].sort((x, y) => (x.experiment_id < y.experiment_id ? -1 : 1))) mapping[e.experiment_id] = newExperimentId();
  for (const e of b.experiments ?? []) {
    const running = e.status === 'running';
    const dataset = renamed.get(e.dataset) ?? e.dataset;
    const record: ExperimentRecord = {
      experiment_id: mapping[e.experiment_id]!,
      dataset,
      dataset_file: renamed.has(e.dataset) ? datasetFile(dataset) : e.dataset_file,
      dataset_hash: e.dataset_hash,
      status: running ? 'cancelled' : e.status,
      reason: running ? 'exported_while_running' : e.reason,
      repeat: e.repeat,
      concurrency: e.concurrency,
      cases_filter: e.cases_filter,
      tags_filter: e.tags_filter,
      code_fingerprint: e.code_fingerprint,
      code_files: e.code_files,
      model: e.model,
      changed_files: e.changed_files,
      created_at: e.created_at,
      started_at: e.started_at,
      ended_at: e.ended_at ?? ids.now,
      imported_from: e.experiment_id,
      imported_project: ids.project,
      imported_at: ids.now,
    };
    const cases = e.cases.map((c): ImportedCase => {
      const runActive = active(c.run_status);
      return {
        case_id: c.case_id,
        repeat: c.repeat,
        description: c.description,
        tags: c.tags,
        input_preview: c.input_preview,
        status: c.status === 'pending' || c.status === 'running' ? 'cancelled' : c.status,
        run_id: c.run_id === null ? null : ids.runs[c.run_id]!,
        session_id: c.session_id === null ? null : ids.sessions[c.session_id]!,
        run_status: runActive ? 'interrupted' : c.run_status,
        run_reason: runActive ? 'exported_while_active' : c.run_reason,
        error_code: c.error_code,
        duration_ms: c.duration_ms,
        assertions: c.assertions,
        scores: c.scores as ScoreEntry[],
        message: c.message,
      };
    });
    store.insertImported(
      record,
      cases,
      e.session_ids.map((s) => ids.sessions[s]!),
    );
  }
  return mapping;
}
