// The studio's one client of its runtime child: every HTTP call the studio makes to the
// runtime goes through here, and every reply is read with the contract's schemas
// (src/shared/runtime-contract.ts), leniently as spec 2.6 and 9.6 ask of clients. Callers
// get typed results, never a raw body to cast.
import { z } from 'zod';
import {
  CheckpointDetailReplySchema,
  CheckpointPageReplySchema,
  DEBUG_BASE,
  EditReplySchema,
  ForkReplySchema,
  StateSchemaReplySchema,
  type EditRequest,
  type EditResult,
  type ForkRequest,
  type ForkResult,
  type CheckpointPage,
  type RuntimeCheckpointDetail,
  type StateSchema,
} from '../../../shared/thread-state.ts';
import {
  MODEL_CALL_ROUTE,
  ModelCallReplySchema,
  RUNTIME_PATHS,
  RuntimeSchemas,
  type ModelCallRequest,
  type ModelCallResult,
  type RegistryMetadata,
  type ReloadFailure,
  type ReloadOutcome,
} from '../../../shared/runtime-contract.ts';

/** Where the runtime is, and the headers that authenticate the studio to it. */
export interface RuntimeLocator {
  /** Base URL (with trailing slash) of a ready runtime, or null when none is ready in time. */
  waitReady(timeoutMs: number): Promise<string | null>;
  controlHeaders(): Record<string, string>;
}

/** What POST registry/reload came to. */
export type ReloadResult =
  /** The runtime serves the project's current files. */
  | { kind: 'reloaded'; outcome: ReloadOutcome }
  /** The files do not load: the runtime keeps serving the previous generation. */
  | { kind: 'failed'; failure: ReloadFailure }
  /** No usable answer (control endpoints off, a refusal, no connection): restart instead.
   * `status` and `body` when the runtime answered, `error` when it did not. */
  | { kind: 'unavailable'; status: number | null; body: unknown; error: string | null };

/** A document read from the ready runtime. */
export type Fetched<T> = { ok: true; value: T } | { ok: false; reason: 'not_running' } | { ok: false; reason: 'no_answer'; detail: string; status?: number };

/** A debugger POST the runtime refused with a 4xx (an invalid edit, a missing checkpoint). */
export type Refused = { ok: false; reason: 'refused'; status: number; code: string; message: string; extra: Record<string, unknown> };

/** The runtime's path of a thread's checkpoints, relative to its base URL. */
const debugPath = (threadId: string) => `${DEBUG_BASE.slice(1)}/threads/${encodeURIComponent(threadId)}/checkpoints`;

const RELOAD_TIMEOUT_MS = 60_000;
const READ_TIMEOUT_MS = 5_000;

export class RuntimeClient {
  constructor(private readonly locator: RuntimeLocator) {}

  /** Asks the runtime at `base` to load the project's files again (spec 4.2). */
  async reload(base: string): Promise<ReloadResult> {
    let res: Response;
    let body: unknown;
    try {
      res = await fetch(`${base}${RUNTIME_PATHS.reload}`, {
        method: 'POST',
        headers: this.locator.controlHeaders(),
        signal: AbortSignal.timeout(RELOAD_TIMEOUT_MS),
      });
      body = await res.json().catch(() => null);
    } catch (err) {
      return { kind: 'unavailable', status: null, body: null, error: (err as Error).message };
    }
    const reloaded = RuntimeSchemas.ReloadReply.safeParse(body);
    if (res.ok && reloaded.success) return { kind: 'reloaded', outcome: reloaded.data.data };
    const failed = RuntimeSchemas.ReloadFailedReply.safeParse(body);
    if (failed.success) return { kind: 'failed', failure: failed.data.error };
    return { kind: 'unavailable', status: res.status, body, error: null };
  }

  /** Whether the runtime at `base` answers GET /livez with 200 within `timeoutMs`: the process
   * is not hung. Liveness never asks the store, so a runtime whose database is briefly away
   * is not restarted for it (docs/deployment.md, "When the store is unreachable"). */
  async healthy(base: string, timeoutMs: number): Promise<boolean> {
    try {
      const res = await fetch(`${base}${RUNTIME_PATHS.liveness}`, { signal: AbortSignal.timeout(timeoutMs) });
      await res.body?.cancel();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** The registry metadata of the loaded project (spec 4.2). */
  async metadata(waitMs: number): Promise<Fetched<RegistryMetadata>> {
    const got = await this.read(waitMs, RUNTIME_PATHS.metadata, this.locator.controlHeaders(), RuntimeSchemas.MetadataReply);
    return got.ok ? { ok: true, value: got.value.data } : got;
  }

  /** Where the runtime's trace spans go: each trace sink's state (GET /api/v1/status `trace_sinks`). */
  async traceSinks(waitMs: number): Promise<Fetched<Record<string, Record<string, unknown>>>> {
    const got = await this.read(waitMs, RUNTIME_PATHS.status, this.locator.controlHeaders(), RuntimeSchemas.StatusReply);
    return got.ok ? { ok: true, value: got.value.data.trace_sinks } : got;
  }

  /** The loaded project's graph, as the runtime answers it (the renderer reads it). */
  graph(waitMs: number): Promise<Fetched<unknown>> {
    return this.read(waitMs, RUNTIME_PATHS.graph, {}, z.unknown());
  }

  /** The runtime's public agent card (A2A 0.3.0: a shape of the A2A protocol, not of this
   * contract; its readers check what they use). */
  agentCard(waitMs: number): Promise<Fetched<unknown>> {
    return this.read(waitMs, RUNTIME_PATHS.agentCard, {}, z.unknown());
  }

  /** A page of a thread's checkpoints, newest first (the debugger's endpoints, src/shared/thread-state.ts). */
  async checkpoints(threadId: string, q: { limit: number; before?: string; taskId?: string }, waitMs: number): Promise<Fetched<CheckpointPage>> {
    const query = new URLSearchParams({ limit: String(q.limit), ...(q.before ? { before: q.before } : {}), ...(q.taskId ? { task_id: q.taskId } : {}) });
    const got = await this.read(waitMs, `${debugPath(threadId)}?${query}`, this.locator.controlHeaders(), CheckpointPageReplySchema);
    return got.ok ? { ok: true, value: got.value.data } : got;
  }

  /** One checkpoint's state (with its parent's values when `parentValues`); `missing` when the
   * thread has no such checkpoint. */
  async checkpoint(
    threadId: string,
    checkpointId: string,
    ns: string,
    waitMs: number,
    parentValues = false,
  ): Promise<Fetched<RuntimeCheckpointDetail> | { ok: false; reason: 'missing' }> {
    const query = new URLSearchParams({ ns, ...(parentValues ? { parent_values: 'true' } : {}) });
    const relative = `${debugPath(threadId)}/${encodeURIComponent(checkpointId)}?${query}`;
    const got = await this.read(waitMs, relative, this.locator.controlHeaders(), CheckpointDetailReplySchema);
    if (got.ok) return { ok: true, value: got.value.data };
    return got.reason === 'no_answer' && got.status === 404 ? { ok: false, reason: 'missing' } : got;
  }

  /** Forks a thread at a checkpoint into `body.thread_id` (the runtime's debugger endpoint). */
  async fork(threadId: string, body: ForkRequest, waitMs: number): Promise<Fetched<ForkResult> | Refused> {
    return this.post(waitMs, `threads/${encodeURIComponent(threadId)}/fork`, body, ForkReplySchema);
  }

  /** Edits a paused thread in place, as the node that wrote the paused checkpoint. */
  async edit(threadId: string, body: EditRequest, waitMs: number): Promise<Fetched<EditResult> | Refused> {
    return this.post(waitMs, `threads/${encodeURIComponent(threadId)}/edit`, body, EditReplySchema);
  }

  /** Sends one edited model call to the project's configured model (D-100). */
  async modelCall(body: ModelCallRequest, waitMs: number): Promise<Fetched<ModelCallResult> | Refused> {
    return this.post(waitMs, MODEL_CALL_ROUTE.slice(1), body, ModelCallReplySchema);
  }

  /** The loaded graph's state schema (what an edit may hold). */
  async stateSchema(waitMs: number): Promise<Fetched<StateSchema>> {
    const got = await this.read(waitMs, `${DEBUG_BASE.slice(1)}/state-schema`, this.locator.controlHeaders(), StateSchemaReplySchema);
    return got.ok ? { ok: true, value: got.value.data } : got;
  }

  /** A debugger POST; `refused` carries the runtime's 4xx error. */
  private async post<D, S extends z.ZodType<{ data: D }>>(waitMs: number, relative: string, body: unknown, schema: S): Promise<Fetched<D> | Refused> {
    const base = await this.locator.waitReady(waitMs);
    if (!base) return { ok: false, reason: 'not_running' };
    try {
      const res = await fetch(`${base}${DEBUG_BASE.slice(1)}/${relative}`, {
        method: 'POST',
        headers: { ...this.locator.controlHeaders(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(RELOAD_TIMEOUT_MS),
      });
      const answer = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string; [k: string]: unknown } } | null;
      if (res.status >= 400 && res.status < 500 && answer?.error) {
        const { code, message, ...extra } = answer.error;
        return { ok: false, reason: 'refused', status: res.status, code: code ?? 'UNKNOWN', message: message ?? `HTTP ${res.status}`, extra };
      }
      const parsed = schema.safeParse(answer);
      if (!parsed.success) return { ok: false, reason: 'no_answer', detail: `HTTP ${res.status}`, status: res.status };
      return { ok: true, value: (parsed.data as { data: D }).data };
    } catch (err) {
      return { ok: false, reason: 'no_answer', detail: (err as Error).message };
    }
  }

  private async read<S extends z.ZodType>(waitMs: number, relative: string, headers: Record<string, string>, schema: S): Promise<Fetched<z.infer<S>>> {
    const base = await this.locator.waitReady(waitMs);
    if (!base) return { ok: false, reason: 'not_running' };
    try {
      const res = await fetch(`${base}${relative}`, { headers, signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
      if (!res.ok) {
        await res.body?.cancel();
        return { ok: false, reason: 'no_answer', detail: `HTTP ${res.status}`, status: res.status };
      }
      const body: unknown = await res.json();
      const parsed = schema.safeParse(body);
      if (!parsed.success) throw new Error(`an answer the studio does not understand (${parsed.error.issues[0]?.message ?? 'invalid'})`);
      return { ok: true, value: parsed.data };
    } catch (err) {
      return { ok: false, reason: 'no_answer', detail: (err as Error).message };
    }
  }
}
