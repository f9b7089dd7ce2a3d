// Recorded calls and replay (src/shared/recordings.ts; docs/runtime-traces.md, "Recorded
// calls"; D-91). A run's session, opened by the runtime for a thread, numbers each call by
// (kind, node, fan-out branch) and hashes its request, so a replay answers it from the
// recorded run whatever order concurrent branches call in. The runtime and the project may
// hold separate copies of this module (the project's TypeScript loads in its own tsx
// namespace), so the sessions and the branch context live on globalThis.
import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import { AgentError } from './errors.ts';
import { mockAnswer, type CallMock } from './call-mocks.ts';

// The shapes of src/shared/recordings.ts (CallKey, ReplayAnswer, ReplayPlan), restated: the
// SDK ships without src/shared.
export interface CallKey {
  node: string;
  branch: string | null;
  index: number;
  hash: string;
}
export type ReplayMismatch = 'error' | 'live';
export interface ReplayAnswer {
  kind: CallKind;
  key: CallKey;
  request?: unknown;
  [field: string]: unknown;
}
export interface ReplayPlan {
  on_mismatch: ReplayMismatch;
  answers: ReplayAnswer[];
}

export type CallKind = 'model' | 'fetch' | 'mcp' | 'agent';

/** The fan-out branch a call runs in (fanout.ts), and a call kind set by the caller (callAgent). */
export interface CallScope {
  branch?: { label: string; span_id: string };
  kind?: CallKind;
  /** Inside a model call (replay-model.ts): the provider's HTTP request belongs to it. */
  modelRun?: string;
}

/** A recorded or replayed call, as the session's `emit` receives it (trace event fields). */
export type CallEvent = Record<string, unknown>;

export interface CallSessionOptions {
  /** Record calls (their content: messages, bodies) in the trace. */
  record: boolean;
  replay: ReplayPlan | null;
  /** Tool mocks of the run's session or experiment (call-mocks.ts, D-102): answered first. */
  mocks?: CallMock[] | null;
  /** Receives each `outbound.call` event (model calls go out as `model.call` from usage.ts). */
  emit(name: string, fields: CallEvent): void;
}

/** A call that has no recorded match in strict replay: the run fails `INTERNAL_ERROR`,
 * reason `replay_mismatch`, the message naming the call and the difference; `detail.call`
 * is the call's kind, node, branch and index (docs/playground-api.md, "Replay"). */
export class ReplayMismatchError extends AgentError {
  constructor(key: Omit<CallKey, 'hash'> & { kind: CallKind }, message: string) {
    super({ code: 'INTERNAL_ERROR', reason: 'replay_mismatch', message, retriable: false, detail: { call: key } });
  }
}

export class CallSession {
  private readonly counters = new Map<string, number>();
  private readonly answers = new Map<string, ReplayAnswer>();
  /** Calls answered from the recording, and calls sent live (no match, on_mismatch=live). */
  replayed = 0;
  live = 0;
  /** Calls answered by a tool mock. */
  mocked = 0;

  constructor(
    readonly thread: string,
    readonly options: CallSessionOptions,
  ) {
    for (const a of options.replay?.answers ?? []) this.answers.set(slot(a.kind, a.key.node, a.key.branch, a.key.index), a);
  }

  get mismatch(): ReplayMismatch | null {
    return this.options.replay?.on_mismatch ?? null;
  }

  /** The next key of a call of `kind` made at `node` in `branch`. */
  next(kind: CallKind, node: string, branch: string | null, hash: string): CallKey {
    const s = slot(kind, node, branch, -1);
    const index = this.counters.get(s) ?? 0;
    this.counters.set(s, index + 1);
    return { node, branch, index, hash };
  }

  /** The recorded answer of this call in a replay: the answer when the key and hash match;
   * on a mismatch, throws naming the call and the difference (strict) or answers null (live). */
  answer(kind: CallKind, key: CallKey, request: unknown): ReplayAnswer | null {
    const mock = mockAnswer(this.options.mocks ?? undefined, kind, key, request);
    if (mock) {
      this.mocked += 1;
      return mock;
    }
    if (!this.options.replay) return null;
    const found = this.answers.get(slot(kind, key.node, key.branch, key.index));
    if (found && found.key.hash === key.hash) {
      this.replayed += 1;
      return found;
    }
    if (this.mismatch === 'live') {
      this.live += 1;
      return null;
    }
    const where = `${kind} call #${key.index} of node '${key.node}'${key.branch !== null ? ` branch '${key.branch}'` : ''}`;
    const why = found
      ? `its request differs from the recorded one: ${describeDifference(found.request, request)}`
      : `the recorded run made no such call (it made ${this.countOf(kind, key.node, key.branch)} there)`;
    throw new ReplayMismatchError({ kind, node: key.node, branch: key.branch, index: key.index }, `Replay: ${where} does not match the recording: ${why}`);
  }

  private countOf(kind: CallKind, node: string, branch: string | null): number {
    let n = 0;
    for (const a of this.options.replay?.answers ?? []) if (a.kind === kind && a.key.node === node && a.key.branch === branch) n += 1;
    return n;
  }
}

function slot(kind: string, node: string, branch: string | null, index: number): string {
  return `${kind}\u0000${node}\u0000${branch ?? ''}\u0000${branch === null ? 0 : 1}\u0000${index}`;
}

interface Shared {
  sessions: Map<string, CallSession>;
  scope: AsyncLocalStorage<CallScope>;
}

const KEY = Symbol.for('agent-studio.call-record');

function shared(): Shared {
  const g = globalThis as unknown as Record<symbol, Shared | undefined>;
  return (g[KEY] ??= { sessions: new Map(), scope: new AsyncLocalStorage<CallScope>() });
}

/** Opens the session of a thread's run (one invocation runs on a thread at a time); the
 * returned function closes it. */
export function openCallSession(thread: string, options: CallSessionOptions): { session: CallSession; close: () => void } {
  const session = new CallSession(thread, options);
  const { sessions } = shared();
  sessions.set(thread, session);
  return { session, close: () => (sessions.get(thread) === session ? void sessions.delete(thread) : undefined) };
}

export function callSession(thread: unknown): CallSession | undefined {
  if (thread === undefined || thread === null) return undefined;
  const { sessions } = shared();
  return sessions.size ? sessions.get(String(thread)) : undefined;
}

/** Whether any run is recording or replaying now (a cheap check before any other work). */
export function anyCallSession(): boolean {
  return shared().sessions.size > 0;
}

/** Runs `fn` with `scope` added to the current call scope (a fan-out branch, a call kind).
 * Only a run that records or replays reads the scope, and its session is open before its graph
 * starts; with none open `fn` runs as it is. An AsyncLocalStorage that has run once stays
 * enabled, and from then on every promise the process makes pays for propagating it
 * (docs/performance.md, "The 0.3 path, cut again"; D-114). */
export function withCallScope<R>(scope: CallScope, fn: () => R): R {
  const { sessions, scope: store } = shared();
  if (sessions.size === 0) return fn();
  return store.run({ ...store.getStore(), ...scope }, fn);
}

export function currentCallScope(): CallScope | undefined {
  return shared().scope.getStore();
}

/** The node a call runs in, from LangGraph's metadata: a subgraph's node as `outer/inner`. */
export function nodeOf(md: Record<string, unknown> | undefined): string {
  const ns = typeof md?.langgraph_checkpoint_ns === 'string' ? md.langgraph_checkpoint_ns : '';
  if (ns)
    return ns
      .split('|')
      .map((p) => p.split(':')[0])
      .join('/');
  return typeof md?.langgraph_node === 'string' ? md.langgraph_node : '(run)';
}

/** JSON with object keys sorted, so equal requests hash equally. */
export function canonicalJson(value: unknown): string {
  const json = JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) out[k] = (v as Record<string, unknown>)[k];
      return out;
    }
    return v;
  });
  return json ?? 'nothing';
}

/** sha256 (hex, first 16 characters) of a request's JSON. The request is built the same way
 * when recorded and when replayed (its keys in the same order), so plain JSON is stable and
 * costs less than sorting every object's keys. */
export function requestHash(request: unknown): string {
  return crypto.createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 16);
}

const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 80)}…` : s);

/** Where two requests first differ, in a sentence (a mismatch's error names it). */
export function describeDifference(recorded: unknown, now: unknown, path = ''): string {
  if (recorded === undefined) return 'the recording does not say what was sent';
  const a = canonicalJson(recorded);
  const b = canonicalJson(now);
  if (a === b) return 'none';
  if (Array.isArray(recorded) && Array.isArray(now)) {
    for (let i = 0; i < Math.max(recorded.length, now.length); i++) {
      if (i >= recorded.length) return `${path}[${i}] is new (${clip(canonicalJson(now[i]))})`;
      if (i >= now.length) return `${path}[${i}] is missing (recorded ${clip(canonicalJson(recorded[i]))})`;
      if (canonicalJson(recorded[i]) !== canonicalJson(now[i])) return describeDifference(recorded[i], now[i], `${path}[${i}]`);
    }
  }
  if (recorded && now && typeof recorded === 'object' && typeof now === 'object' && !Array.isArray(recorded) && !Array.isArray(now)) {
    const r = recorded as Record<string, unknown>;
    const n = now as Record<string, unknown>;
    for (const k of [...new Set([...Object.keys(r), ...Object.keys(n)])].sort()) {
      if (canonicalJson(r[k]) !== canonicalJson(n[k])) return describeDifference(r[k], n[k], path ? `${path}.${k}` : k);
    }
  }
  return `${path || 'the request'} was ${clip(a)}, now ${clip(b)}`;
}
