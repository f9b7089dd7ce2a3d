// Tokens and cost read from the stored runs (docs/playground-api.md, "Tokens and cost"): the
// `model.call` trace events the runtime sent, each already priced by it (D-95), folded per
// call, node span, fan-out branch and run (src/shared/usage.ts), and summed per session and
// per experiment case (its hidden session holds every run of the case).
import { emptyTotals, foldUsage, sumTotals, type RunUsage, type SessionUsage, type UsageTotals } from '../../shared/usage.ts';
import type { EventLog } from './events/log.ts';
import type { PlaygroundStore } from './store/store.ts';

const MODEL_CALL = `e.kind = 'trace' AND json_extract(e.body, '$.name') = 'model.call'`;

function parse(body: string): { name: string; data: Record<string, unknown> } | null {
  try {
    const ev = JSON.parse(body) as { name?: unknown; data?: unknown };
    return ev.data && typeof ev.data === 'object' ? { name: String(ev.name), data: ev.data as Record<string, unknown> } : null;
  } catch {
    return null;
  }
}

export class UsageReader {
  private readonly s;
  private readonly finished = new Map<string, Map<string, UsageTotals>>();

  constructor(
    store: PlaygroundStore,
    /** Events of an active run may still sit in the log's pending batch. */
    private readonly log: Pick<EventLog, 'flush'>,
  ) {
    const p = <T>(sql: string) => store.db.prepare<unknown[], T>(sql);
    this.s = {
      run: p<{ body: string }>(`SELECT e.body FROM run_events e WHERE e.run_id = ? AND ${MODEL_CALL} ORDER BY e.seq`),
      experiment: p<{ session_id: string; body: string }>(`SELECT r.session_id, e.body FROM sessions s JOIN runs r ON r.session_id = s.session_id
          JOIN run_events e ON e.run_id = r.run_id AND ${MODEL_CALL} WHERE s.experiment_id = ? ORDER BY r.session_id, r.run_id, e.seq`),
      session: p<{ run_id: string; body: string | null }>(`SELECT r.run_id, e.body FROM runs r
          LEFT JOIN run_events e ON e.run_id = r.run_id AND ${MODEL_CALL} WHERE r.session_id = ? ORDER BY r.run_id, e.seq`),
    };
  }

  run(runId: string): RunUsage {
    this.log.flush();
    return foldUsage(runId, this.calls(this.s.run.all(runId).map((r) => r.body)));
  }

  session(sessionId: string): SessionUsage {
    this.log.flush();
    const byRun = new Map<string, string[]>();
    for (const row of this.s.session.all(sessionId)) {
      const list = byRun.get(row.run_id) ?? [];
      if (row.body !== null) list.push(row.body);
      byRun.set(row.run_id, list);
    }
    const runs = [...byRun].map(([run_id, bodies]) => ({ run_id, totals: bodies.length ? foldUsage(run_id, this.calls(bodies)).totals : emptyTotals() }));
    return { session_id: sessionId, totals: sumTotals(runs.map((r) => r.totals)), runs };
  }

  /** A session's totals (an experiment case: its history turns and its input). */
  sessionTotals(sessionId: string): UsageTotals {
    return this.session(sessionId).totals;
  }

  /** Per hidden session of an experiment (one per case x repeat), the totals of its runs;
   * a session with no model call is absent. A finished experiment never changes: kept. */
  experiment(experimentId: string, finished: boolean): Map<string, UsageTotals> {
    const kept = this.finished.get(experimentId);
    if (kept) return kept;
    this.log.flush();
    const bySession = new Map<string, string[]>();
    for (const row of this.s.experiment.all(experimentId)) {
      const list = bySession.get(row.session_id) ?? [];
      list.push(row.body);
      bySession.set(row.session_id, list);
    }
    const out = new Map([...bySession].map(([id, bodies]) => [id, foldUsage(id, this.calls(bodies)).totals] as const));
    if (finished) {
      if (this.finished.size >= 64) this.finished.delete(this.finished.keys().next().value!);
      this.finished.set(experimentId, out);
    }
    return out;
  }

  private calls(bodies: string[]): { name: string; data: Record<string, unknown> }[] {
    return bodies.flatMap((b) => parse(b) ?? []);
  }
}
