// The comparison endpoints' service: resolves run ids (400 malformed, 404 unknown), loads the
// runs and answers the comparison or the stability report. Knows nothing of HTTP.
import type { CompareOptions, RunComparison, StabilityReport } from '../../../shared/compare.ts';
import { isActive, type RunDetail } from '../../../shared/playground.ts';
import { PlaygroundError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import { RUN_ID } from '../ids.ts';
import type { PlaygroundStore, RunRecord } from '../store/store.ts';
import { compareRuns, loadRunMaterial } from './compare.ts';
import { ignoreFilter } from './json-diff.ts';
import { MAX_STABILITY_RUNS, stabilityOf } from './stability.ts';
import type { UsageReader } from '../usage.ts';
import { usageDelta } from '../../../shared/usage.ts';

export class ComparisonService {
  constructor(
    private readonly store: PlaygroundStore,
    private readonly log: EventLog,
    /** The run detail as GET /runs/{id} answers it. */
    private readonly getRun: (id: string) => RunDetail,
    private readonly usage: Pick<UsageReader, 'run'>,
  ) {}

  compare(leftId: string, rightId: string, options: CompareOptions): RunComparison {
    checkOptions(options);
    const malformed = [
      ['left', leftId],
      ['right', rightId],
    ].filter(([, id]) => !RUN_ID.test(id));
    if (malformed.length) {
      throw new PlaygroundError(
        'invalid_request',
        malformed.map(([name, id]) => `${name} '${id.slice(0, 80)}' is not a run id (run_ followed by 26 characters)`).join('; '),
        {
          fields: malformed.map(([name]) => name),
        },
      );
    }
    const rows = [leftId, rightId].map((id) => this.store.getRun(id));
    const missing = [leftId, rightId].filter((id, i) => !rows[i]);
    if (missing.length) {
      throw new PlaygroundError('not_found', `no run with id ${[...new Set(missing)].map((id) => `'${id}'`).join(' or ')}`, { run_ids: [...new Set(missing)] });
    }
    this.log.flush(); // events of an active run may still sit in the pending batch
    const [left, right] = [leftId, rightId].map((id) => loadRunMaterial(this.store, this.getRun(id)));
    // Tokens and cost, right minus left (docs/playground-api.md "Tokens and cost").
    return { ...compareRuns(left, right, options), usage: usageDelta(this.usage.run(leftId).totals, this.usage.run(rightId).totals) };
  }

  stability(runId: string, options: CompareOptions): StabilityReport {
    checkOptions(options);
    const row = RUN_ID.test(runId) ? this.store.getRun(runId) : undefined;
    if (!row) throw new PlaygroundError('not_found', `no run with id '${runId.slice(0, 80)}'`, { run_id: runId });
    // The original: up the chain of reruns; then every rerun of it, of its reruns, and so on.
    let original = row;
    for (let hops = 0; original.origin === 'rerun' && original.parent_run_id && hops < 1000; hops++) {
      const parent = this.store.getRun(original.parent_run_id);
      if (!parent) break;
      original = parent;
    }
    const group: RunRecord[] = [original];
    for (let i = 0; i < group.length && group.length < 10_000; i++) group.push(...this.store.childRuns(group[i].run_id, 'rerun'));
    const ended = group.filter((r) => !isActive(r.status));
    // The original (or the oldest ended run) and the newest reruns, when there are too many.
    const kept = ended.length <= MAX_STABILITY_RUNS ? ended : [ended[0], ...ended.slice(-(MAX_STABILITY_RUNS - 1))];
    const runs = kept.map((r) => this.getRun(r.run_id));
    return stabilityOf(
      original.run_id,
      runs.map((d) => ({ run_id: d.run_id, status: d.status, output_parts: d.output_parts, scores: d.scores })),
      group.filter((r) => isActive(r.status)).map((r) => r.run_id),
      options,
    );
  }
}

function checkOptions(options: CompareOptions): void {
  try {
    ignoreFilter(options.ignore)('/probe');
  } catch (err) {
    throw new PlaygroundError('invalid_request', `an ignore glob is not valid: ${(err as Error).message}`, { fields: ['ignore'] });
  }
}
