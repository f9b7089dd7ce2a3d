// Runs an experiment (docs/playground-api.md, "Datasets and experiments"): every selected case
// x repeat as real runs of the runtime child, each in a hidden session of its own (its history
// turns first, then its input), at most `concurrency` runs invoked at a time (one case more
// admitted ahead, waiting for a slot: D-118); the assertions are checked when a case's last run
// ends. The experiment is pinned to the code it started with:
// before each case and after each run the project's code fingerprint is compared with the
// recorded one, and a change stops it (`cancelled`, reason `code_changed`).
import type { RunReplay } from '../../../shared/recordings.ts';
import { replayRuns, replaySessions, type ExperimentReplay } from './replay.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { DatasetCase } from '../../../shared/datasets.ts';
import type { CreateExperimentBody, ExperimentAccepted, ModelSettings } from '../../../shared/experiments.ts';
import { CreateExperimentBodySchema } from '../../../shared/experiments.ts';
import { TERMINAL_STATES, type RunStatus } from '../../../shared/playground.ts';
import { PlaygroundError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import type { EventLog } from '../events/log.ts';
import type { Judge } from '../evals/assertions.ts';
import { newSessionId, ulidFactory } from '../ids.ts';
import type { PlaygroundService } from '../service.ts';
import type { PlaygroundStore, RunRecord } from '../store/store.ts';
import { changedCodeFiles } from './compare.ts';
import { RunSlots } from '../executor/slots.ts';
import type { DatasetService } from './datasets.ts';
import type { ExperimentStore } from './store.ts';
import { casePreview, caseVerdict } from './verdict.ts';

const nextId = ulidFactory();
export const newExperimentId = (): string => `exp_${nextId()}`;

export interface RunnerOptions {
  projectDir: string;
  store: PlaygroundStore;
  experiments: ExperimentStore;
  datasets: DatasetService;
  service: PlaygroundService;
  bus: EventBus;
  /** The run event log: a case's result is written with its next batch (D-112). */
  log: EventLog;
  /** The project's code now (evals/ left out), and a snapshot that keeps its files as blobs. */
  code: () => { fingerprint: string; files: Record<string, string> };
  snapshot: () => { fingerprint: string; files: Record<string, string> };
  model: () => ModelSettings;
  judge: () => Judge | null;
  logger: Logger;
}

interface Item {
  seq: number;
  c: DatasetCase;
  repeat: number;
}

interface Live {
  id: string;
  fingerprint: string;
  files: Record<string, string>;
  stopped: boolean;
  runs: Set<string>;
  /** At most `concurrency` of its runs invoked at a time (D-118). */
  slots: RunSlots;
  /** A replay: the earlier experiment's session of each `case_id#repeat`, and the mismatch rule. */
  replay?: ExperimentReplay;
}

const CASE_END: readonly RunStatus[] = ['completed', 'input_required'];

export class ExperimentRunner {
  private readonly live = new Map<string, Live>();

  constructor(private readonly o: RunnerOptions) {}

  /** Experiments an earlier studio left running end `cancelled`, reason `studio_shutdown`. */
  recover(): void {
    for (const e of this.o.experiments.running())
      if (!this.live.has(e.experiment_id)) this.o.experiments.finish(e.experiment_id, 'cancelled', 'studio_shutdown');
  }

  start(raw: CreateExperimentBody): ExperimentAccepted {
    const body = CreateExperimentBodySchema.parse(raw);
    const dataset = this.o.datasets.get(body.dataset);
    if (body.cases) {
      const known = new Set(dataset.cases.map((c) => c.id));
      const unknown = body.cases.filter((id) => !known.has(id));
      if (unknown.length)
        throw new PlaygroundError('not_found', `the dataset ${dataset.name} has no case ${unknown.map((u) => `"${u}"`).join(', ')}`, { cases: unknown });
    }
    const wanted = body.cases ? new Set(body.cases) : null;
    const selected = dataset.cases.filter((c) => (!wanted || wanted.has(c.id)) && (!body.tags || body.tags.some((t) => c.tags?.includes(t))));
    if (selected.length === 0) {
      throw new PlaygroundError('invalid_request', `the dataset ${dataset.name} has no ${body.tags || body.cases ? 'selected ' : ''}cases`, {
        dataset: dataset.name,
        diagnostics: dataset.diagnostics.length,
      });
    }
    const replay = body.replay ? replaySessions(this.o.experiments, body.replay.from_experiment_id, body.replay.on_mismatch) : undefined;
    const code = this.o.snapshot();
    const id = newExperimentId();
    const now = new Date().toISOString();
    const rows = selected.flatMap((c) =>
      Array.from({ length: body.repeat }, (_, repeat) => ({
        case_id: c.id,
        repeat,
        description: c.description ?? null,
        tags: c.tags ?? [],
        input_preview: casePreview(c),
      })),
    );
    this.o.experiments.insert(
      {
        experiment_id: id,
        dataset: dataset.name,
        dataset_file: dataset.file,
        dataset_hash: dataset.hash,
        status: 'running',
        reason: null,
        repeat: body.repeat,
        concurrency: body.concurrency,
        cases_filter: body.cases ?? null,
        tags_filter: body.tags ?? null,
        code_fingerprint: code.fingerprint,
        code_files: code.files,
        model: this.o.model(),
        changed_files: [],
        created_at: now,
        started_at: now,
        ended_at: null,
      },
      rows,
    );
    const live: Live = {
      id,
      fingerprint: code.fingerprint,
      files: code.files,
      stopped: false,
      runs: new Set(),
      slots: new RunSlots(body.concurrency),
      ...(replay ? { replay } : {}),
    };
    this.live.set(id, live);
    const items: Item[] = selected.flatMap((c) => Array.from({ length: body.repeat }, () => c)).map((c, i) => ({ seq: i + 1, c, repeat: i % body.repeat }));
    const judge = this.o.judge();
    void this.drive(live, items, body.concurrency, judge);
    return { experiment_id: id, status: 'running' };
  }

  isRunning(id: string): boolean {
    return this.live.has(id);
  }

  /** Stops a running experiment: pending cases and running runs are cancelled. */
  stop(id: string, reason: string, changedFiles: string[] = []): boolean {
    const live = this.live.get(id);
    if (!live) return this.o.experiments.finish(id, 'cancelled', reason, changedFiles);
    if (live.stopped) return false;
    live.stopped = true;
    this.o.log.flush(); // the results of cases that ended before the stop are kept
    const ended = this.o.experiments.finish(id, 'cancelled', reason, changedFiles);
    for (const runId of live.runs) {
      try {
        this.o.service.cancelRun(runId);
      } catch {
        // already gone
      }
    }
    this.o.logger.info({ experiment_id: id, reason, changed_files: changedFiles }, 'experiment stopped');
    return ended;
  }

  /** Studio shutdown: running experiments end `cancelled`, reason `studio_shutdown`. */
  shutdown(): void {
    for (const id of [...this.live.keys()]) this.stop(id, 'studio_shutdown');
  }

  private async drive(live: Live, items: Item[], concurrency: number, judge: Judge | null): Promise<void> {
    let next = 0;
    const worker = async () => {
      for (;;) {
        // The next case's admission waits for the I/O already due (the runtime's answers, its
        // trace posts): the case it admits waits for a slot anyway (D-118).
        await nextTurn();
        if (live.stopped || next >= items.length) return;
        const item = items[next++]!;
        try {
          await this.runCase(live, item, judge);
        } catch (err) {
          this.o.logger.warn({ err: (err as Error).message, experiment_id: live.id, case_id: item.c.id }, 'an experiment case failed to run');
          this.o.experiments.updateCase(live.id, item.seq, { status: 'error', message: (err as Error).message });
        }
      }
    };
    try {
      // One worker more than the slots: the next case is admitted and waits `queued` while
      // `concurrency` run, so it is sent the moment a run's final status frees a slot (D-118).
      await Promise.all(Array.from({ length: Math.min(concurrency + 1, items.length) }, worker));
      // Every case's result is written before the experiment ends (D-112).
      this.o.log.flush();
      if (!live.stopped) this.o.experiments.finish(live.id, 'completed', null);
    } catch (err) {
      this.o.logger.error({ err, experiment_id: live.id }, 'experiment failed');
      this.o.log.flush();
      this.o.experiments.finish(live.id, 'failed', 'internal_error');
    } finally {
      this.live.delete(live.id);
    }
  }

  /** Stops the experiment when the code differs from the one it started with. */
  private codeMoved(live: Live, files: Record<string, string> | null): boolean {
    if (live.stopped) return true;
    let now = files;
    if (!now) {
      const code = this.o.code();
      if (code.fingerprint === live.fingerprint) return false;
      now = code.files;
    }
    const changed = changedCodeFiles(live.files, now).map((f) => f.path);
    if (changed.length === 0) return false;
    this.stop(live.id, 'code_changed', changed);
    return true;
  }

  private async runCase(live: Live, item: Item, judge: Judge | null): Promise<void> {
    const { c, seq } = item;
    if (this.codeMoved(live, null)) return;
    const sessionId = newSessionId();
    const now = new Date().toISOString();
    // The hidden session and the case's `running` row commit with the case's first run.
    let open: (() => void) | undefined = () => {
      this.o.store.insertExperimentSession(sessionId, `${c.id} (${live.id})`, live.id, now);
      this.o.experiments.updateCase(live.id, seq, { status: 'running', session_id: sessionId });
    };
    const recorded = replayRuns(this.o.store, live.replay, `${item.c.id}#${item.repeat}`);
    const replayOf = (turn: number): RunReplay | undefined =>
      live.replay && recorded[turn] ? { from_run_id: recorded[turn], on_mismatch: live.replay.on_mismatch } : undefined;
    for (const [i, turn] of (c.history ?? []).entries()) {
      const run = await this.runTurn(live, sessionId, turn, undefined, open, replayOf(i));
      open = undefined;
      if (!run) return;
      if (run.code_files && this.codeMoved(live, run.code_files)) return;
      if (!CASE_END.includes(run.status)) {
        this.o.experiments.updateCase(live.id, seq, {
          status: 'error',
          run_id: run.run_id,
          run_status: run.status,
          run_reason: run.reason,
          message: `history turn ${i + 1} ended ${run.status}${run.reason ? ` (${run.reason})` : ''}`,
        });
        return;
      }
    }
    const run = await this.runTurn(
      live,
      sessionId,
      c.input,
      (runId) => this.o.experiments.updateCase(live.id, seq, { run_id: runId }),
      open,
      replayOf((c.history ?? []).length),
    );
    if (!run) return;
    if (run.code_files && this.codeMoved(live, run.code_files)) return;
    const patch = await caseVerdict(c, run, { projectDir: this.o.projectDir, judge });
    // Written with the run log's next batch (within 5 ms: the next case's run writes its
    // state at once) instead of in a commit of its own (D-112).
    this.o.log.later(() => this.o.experiments.updateCase(live.id, seq, patch));
  }

  /** Sends one turn on the case's session and waits for its run to end; null when the
   * experiment stopped meanwhile. */
  private async runTurn(
    live: Live,
    sessionId: string,
    input: DatasetCase['input'],
    onRun?: (runId: string) => void,
    before?: () => void,
    replay?: RunReplay,
  ): Promise<RunRecord | null> {
    if (live.stopped) return null;
    const parts = this.o.datasets.requestParts(input);
    // One commit for the run's admission and the case rows written with it (`before`, `onRun`).
    const accepted = this.o.store.transaction(() => {
      before?.();
      const a = this.o.service.admitExperimentRun(sessionId, parts, input.metadata, replay, live.slots);
      onRun?.(a.run_id);
      return a;
    });
    live.runs.add(accepted.run_id);
    try {
      await this.ended(accepted.run_id);
    } finally {
      live.runs.delete(accepted.run_id);
    }
    if (live.stopped) return null;
    return this.o.store.getRun(accepted.run_id) ?? null;
  }

  /** Resolves when the run's terminal status event is appended (or it already ended): the
   * case goes on once the end's transaction is done, ahead of pending I/O, so the worker's next
   * case reaches the runtime sooner (D-117). */
  private ended(runId: string): Promise<void> {
    return new Promise((resolve) => {
      const off = this.o.bus.subscribe(runId, (e) => {
        if (!e.terminal) return;
        off();
        resolve();
      });
      const status = this.o.store.runStatus(runId);
      if (status && TERMINAL_STATES.includes(status)) {
        off();
        resolve();
      }
    });
  }
}
