// The Playground services (spec 4.3): sessions and runs. They know nothing of HTTP: the
// routes validate requests with zod and call these; failures are PlaygroundErrors.
//
// One active run per project (spec 8, 4.3 rule 2): better-sqlite3 is synchronous, so the
// check for an active run, the blob writes and the insert of the new run run in one
// synchronous stretch with no await in between; two concurrent creates are serialised by
// the event loop and exactly one of them wins.
import { recordedCalls, type RecordedCallRow } from './recordings/recordings.ts';
import type { ReplayOption, RunReplay } from '../../shared/recordings.ts';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type {
  CreateRunBody,
  CreateSessionBody,
  InputPart,
  Page,
  TranscriptTurn,
  RunAccepted,
  RunDetail,
  RunEdit,
  RunSummary,
  Session,
} from '../../shared/playground.ts';
import { isActive } from '../../shared/playground.ts';
import type { ResumeBody } from '../../shared/playground-requests.ts';
import { conversation } from './conversation.ts';
import { PlaygroundError, notFound } from './errors.ts';
import type { EventLog } from './events/log.ts';
import { RESERVED_METADATA_KEY } from './executor/capture.ts';
import type { RunExecutor } from './executor/executor.ts';
import type { StartOptions } from './executor/active-run.ts';
import { INITIAL_RUN_STATE } from './executor/lifecycle.ts';
import { newRunId, newSessionId } from './ids.ts';
import { blobsOf, inputToTagged, type StoredBlob } from './parts.ts';
import { normaliseChangedFile } from './paths.ts';
import type { BlobStore } from './store/blobs.ts';
import type { RunSlots } from './executor/slots.ts';
import { previewOf, toDetail, type NewRun, type PageQuery, type PlaygroundStore } from './store/store.ts';

export interface ServiceOptions {
  store: PlaygroundStore;
  blobs: BlobStore;
  log: EventLog;
  executor: RunExecutor;
  logger?: Logger;
}

export const DEFAULT_SESSION_TITLE = 'Untitled session';

/** How long the runtime may hold an experiment case's trace events before posting them
 * (D-111): a case starts in a hidden session no one watches yet, and each post costs the two
 * processes about 0.5 ms of CPU (docs/performance.md, "Experiments"); its last events still
 * arrive before its end. */
export const EXPERIMENT_CAPTURE_BATCH_MS = 250;

/** User metadata as stored: the reserved capture key never is (docs/decisions.md D-11). */
export function storableMetadata(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  const copy = { ...(metadata ?? {}) };
  delete copy[RESERVED_METADATA_KEY];
  return copy;
}

export class PlaygroundService {
  constructor(private readonly o: ServiceOptions) {}

  // Sessions -------------------------------------------------------------------------

  createSession(body: CreateSessionBody): Session {
    const title = body.title?.trim() || DEFAULT_SESSION_TITLE;
    return this.o.store.insertSession(newSessionId(), title, new Date().toISOString());
  }

  /** PATCH /sessions/{id}: a new title (docs/playground-api.md). */
  renameSession(id: string, title: string): Session {
    this.getSession(id);
    this.o.store.renameSession(id, title, new Date().toISOString());
    return this.getSession(id);
  }

  listSessions(q: PageQuery): Page<Session> {
    return this.o.store.listSessions(q);
  }

  getSession(id: string): Session {
    const s = this.o.store.getSession(id);
    if (!s) throw notFound('session', id);
    return s;
  }

  /** spec 4.3 rule 3: removes the session, its runs and events, and every blob no other
   * session references. An active run of the session is cancelled first. The branches made
   * from its turns go with it (their conversations begin with those turns; docs/playground-api.md,
   * "Conversation branches"); the session a branch came from is never touched. */
  deleteSession(id: string): void {
    this.getSession(id);
    for (const branch of this.o.store.branches.from(id)) this.deleteSession(branch);
    const runIds = this.o.store.sessionRunIds(id);
    for (const runId of runIds) this.o.executor.cancel(runId);
    this.o.log.forget(runIds);
    const { orphanBlobs } = this.o.store.deleteSession(id);
    for (const sha of orphanBlobs) {
      try {
        this.o.blobs.delete(sha);
      } catch (err) {
        this.o.logger?.warn({ err, sha256: sha }, 'could not remove an orphaned blob');
      }
    }
  }

  // Runs -----------------------------------------------------------------------------

  listRuns(sessionId: string, q: PageQuery): Page<RunSummary> {
    this.getSession(sessionId);
    return this.o.store.listRuns(sessionId, q);
  }

  transcript(sessionId: string, after: string | null, limit: number): Page<TranscriptTurn> {
    this.getSession(sessionId);
    return conversation(this.o.store, sessionId, after, limit);
  }

  getRun(id: string): RunDetail {
    const row = this.o.store.getRun(id);
    if (!row) throw notFound('run', id);
    const detail = toDetail(row);
    // Events of an active run may still sit in the pending batch.
    detail.last_seq = Math.max(detail.last_seq, this.o.log.lastSeq(id));
    return detail;
  }

  /** POST /sessions/{id}/runs (spec 4.3): 202 at once; the executor does the work. */
  createRun(sessionId: string, body: CreateRunBody): RunAccepted {
    const session = this.getSession(sessionId);
    // An experiment's case session keeps what the experiment ran (docs/playground-api.md,
    // "Datasets and experiments"): a message would add a turn the experiment never ran.
    if (session.experiment_id)
      throw new PlaygroundError(
        'experiment_session',
        `session ${sessionId} runs a case of experiment ${session.experiment_id}; send in a session of your own`,
        {
          experiment_id: session.experiment_id,
        },
      );
    this.assertNoActiveRun();
    const input = inputToTagged(body.parts, this.o.blobs);
    // A session nobody named takes its first message as its title.
    if (session.title === DEFAULT_SESSION_TITLE && session.run_count === 0) {
      const first = previewOf(input.parts);
      if (first) this.o.store.renameSession(sessionId, first.length > 60 ? `${first.slice(0, 59)}…` : first, new Date().toISOString());
    }
    return this.admit(
      {
        session_id: sessionId,
        parent_run_id: null,
        origin: 'send',
        // A new message continues the session's conversation: the context of its latest run.
        context_id: this.o.store.latestContextId(sessionId),
        task_id: null,
        input_parts: input.parts,
        metadata: storableMetadata(body.metadata),
        changed_files: (body.changed_files ?? []).map(normaliseChangedFile),
        revision: body.revision ?? null,
      },
      input.blobs,
    );
  }

  /** POST /runs/{id}/resume (spec 3): only for an input_required run; the child keeps the
   * parent's context_id and task_id. */
  resumeRun(runId: string, body: ResumeBody): RunAccepted {
    const parent = this.o.store.getRun(runId);
    if (!parent) throw notFound('run', runId);
    if (parent.status !== 'input_required') {
      throw new PlaygroundError('run_not_resumable', `run ${runId} is ${parent.status}; only a run in input_required can be resumed`, {
        run_id: runId,
        status: parent.status,
      });
    }
    // A question is answered once: after a resume the agent reached (completed, or asked
    // again), the conversation has moved on; a resume that failed or was cancelled can be retried.
    const answered = this.o.store.answeredResume(runId);
    if (answered) {
      throw new PlaygroundError('run_not_resumable', `run ${runId} was already resumed by ${answered.run_id} (${answered.status}); resume that run instead`, {
        run_id: runId,
        status: parent.status,
        resumed_by: answered.run_id,
      });
    }
    this.assertNoActiveRun();
    const input = inputToTagged(body.parts, this.o.blobs);
    return this.admit(
      {
        session_id: parent.session_id,
        parent_run_id: parent.run_id,
        origin: 'resume',
        context_id: parent.context_id,
        task_id: parent.task_id,
        input_parts: input.parts,
        // The conversation keeps its user metadata unless the resume gives new metadata.
        metadata: body.metadata !== undefined ? storableMetadata(body.metadata) : parent.metadata,
        changed_files: [],
        revision: parent.revision,
      },
      input.blobs,
    );
  }

  /** POST /runs/{id}/resume of a run paused at a breakpoint (docs/playground-api.md, "Breakpoints
   * and stepping"): a child run with no input on the parent's context and task; the caller
   * checked the pause. `edit`: the edit of the paused state it was continued with, recorded. */
  continueRun(runId: string, edit?: RunEdit): RunAccepted {
    const parent = this.o.store.getRun(runId);
    if (!parent) throw notFound('run', runId);
    this.assertNoActiveRun();
    const { session_id, context_id, task_id, metadata, revision } = parent;
    const edited_state = edit ? JSON.stringify(edit) : null;
    return this.admit(
      { session_id, parent_run_id: runId, origin: 'resume', context_id, task_id, input_parts: [], metadata, changed_files: [], revision, edited_state },
      [],
    );
  }

  /** POST /runs/{id}/rerun (spec 3): any run; input parts copied; a new context_id. With
   * `replay`, its calls are answered from a recorded run (docs/playground-api.md, "Replay"). */
  rerunRun(runId: string, replay?: ReplayOption): RunAccepted {
    const source = this.o.store.getRun(runId);
    if (!source) throw notFound('run', runId);
    const from = replay ? (replay.from_run_id ?? runId) : null;
    if (from && !this.o.store.getRun(from)) throw notFound('run', from);
    this.assertNoActiveRun();
    const parts = source.input_parts;
    return this.admit(
      {
        session_id: source.session_id,
        parent_run_id: source.run_id,
        origin: 'rerun',
        context_id: randomUUID(),
        task_id: null,
        input_parts: parts,
        metadata: source.metadata,
        changed_files: [],
        revision: source.revision,
        ...(from ? { replay: JSON.stringify({ from_run_id: from, on_mismatch: replay!.on_mismatch }) } : {}),
      },
      blobsOf(parts),
    );
  }

  /** GET /runs/{id}/calls: the run's recorded calls, bodies read back (docs/playground-api.md). */
  recordedCalls(runId: string): { items: RecordedCallRow[] } {
    if (!this.o.store.getRun(runId)) throw notFound('run', runId);
    return { items: recordedCalls(this.o.log, runId, this.o.blobs) };
  }

  /** DELETE /runs/{id} (spec 3): an active run ends `cancelled`, reason `user_cancelled`.
   * A run that already ended is left as it is (the call is idempotent). */
  cancelRun(runId: string): RunDetail {
    const row = this.o.store.getRun(runId);
    if (!row) throw notFound('run', runId);
    if (isActive(row.status)) this.o.executor.cancel(runId);
    return this.getRun(runId);
  }

  // ---------------------------------------------------------------------------------

  /** 409 active_run_conflict while the project has an active run (spec 4.3 rule 2). */
  assertNoActiveRun(): void {
    const active = this.o.store.activeRunId();
    if (active) {
      throw new PlaygroundError('active_run_conflict', `the project already has an active run (${active}); wait for it to end or cancel it`, {
        active_run_id: active,
      });
    }
  }

  /** A run of an experiment's hidden session (docs/playground-api.md, "Datasets and
   * experiments"): it continues the session's conversation like a send, and does not take the
   * project's one active-run slot (spec 4.3 rule 2 governs interactive runs only). Its trace
   * events may wait EXPERIMENT_CAPTURE_BATCH_MS in the runtime (D-111); it is invoked when it
   * holds one of the experiment's `slots` (D-118). */
  admitExperimentRun(
    sessionId: string,
    parts: readonly InputPart[],
    metadata: Record<string, unknown> | undefined,
    replay: RunReplay | undefined,
    slots: RunSlots,
  ): RunAccepted {
    const input = inputToTagged(parts, this.o.blobs);
    const run = {
      session_id: sessionId,
      parent_run_id: null,
      origin: 'send' as const,
      context_id: this.o.store.latestContextId(sessionId),
      task_id: null,
      input_parts: input.parts,
      metadata: storableMetadata(metadata),
      changed_files: [],
      revision: null,
      ...(replay ? { replay: JSON.stringify(replay) } : {}),
    };
    return this.admit(run, input.blobs, false, { captureBatchMs: EXPERIMENT_CAPTURE_BATCH_MS, atOnce: true, slots });
  }

  /** Inserts the run as `queued` with its first events and hands it to the executor.
   * Runs synchronously from the active-run check to the insert (see the header). */
  /** Admits the first run of a session made for it (a fork's, a branch's). A refused admit (a
   * run started meanwhile: 409) deletes that session, so no empty one is left behind. */
  admitFirst(run: Omit<NewRun, 'run_id' | 'status' | 'created_at'>, blobs: StoredBlob[]): RunAccepted {
    try {
      return this.admit(run, blobs);
    } catch (err) {
      this.deleteSession(run.session_id);
      throw err;
    }
  }

  admit(run: Omit<NewRun, 'run_id' | 'status' | 'created_at'>, blobs: StoredBlob[], exclusive = true, start: StartOptions = {}): RunAccepted {
    const row: NewRun = { ...run, run_id: newRunId(), status: INITIAL_RUN_STATE, created_at: new Date().toISOString() };
    this.o.store.transaction(() => {
      if (exclusive) this.assertNoActiveRun();
      this.o.store.insertRun(row);
      for (const b of blobs) this.o.store.linkBlob(row.run_id, b.sha256, b.size, row.created_at);
      this.o.store.touchSession(row.session_id, row.created_at);
      this.o.log.append(row.run_id, 'run.status', { status: row.status });
      this.o.log.append(row.run_id, 'run.phase', { phase: 'queue', state: 'started', origin: row.origin });
      this.o.log.flush(); // the run's first events commit with its row
    });
    this.o.executor.start(row.run_id, start);
    return { run_id: row.run_id, status: row.status, session_id: row.session_id, parent_run_id: row.parent_run_id };
  }
}
