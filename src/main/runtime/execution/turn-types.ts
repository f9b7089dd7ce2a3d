// What a turn is handed (execution/turn.ts): its dependencies, the turn as the protocol
// binding gives it, and the events the binding publishes.
import type { Logger } from 'pino';
import type { AgentError } from '../../../sdk/errors.ts';
import type { AgentRequest, AgentResponse } from '../../../sdk/state.ts';
import type { TurnCallSettings } from './calls.ts';
import type { ReplayPlan } from '../../../shared/recordings.ts';
import type { MockPlan } from '../../../shared/mocks.ts';
import type { RuntimeSettings } from '../config.ts';
import type { Generation } from '../project/registry.ts';
import type { TraceSink } from '../observability/trace.ts';
import type { InvocationCounts } from '../observability/stats.ts';
import type { MemoryStore } from '../store/types.ts';
import type { InputDeps } from './input.ts';
import type { DebugControl } from '../../../shared/breakpoints.ts';

export interface TurnDeps extends InputDeps {
  settings: InputDeps['settings'] &
    Pick<RuntimeSettings, 'captureUrl' | 'nodeSpans' | 'stageTiming' | 'checkpointDurability' | 'traceModelContent'> &
    TurnCallSettings;
  sinks: TraceSink[];
  log: Logger;
  store: InputDeps['store'] & Pick<MemoryStore, 'appendTranscript'>;
  /** Counts for /api/v1/status. */
  stats: InvocationCounts;
}

/** One turn as the binding hands it over. */
export interface Turn {
  /** The generation the turn runs on to its end, whatever reloads meanwhile (spec 5.2). */
  gen: Generation;
  taskId: string;
  contextId: string;
  messageId: string;
  /** The kinds of the message's parts, for `invoke.start`. */
  partKinds: string[];
  request: AgentRequest;
  /** The client's history (params.metadata.history), seeding a cold thread. */
  history: unknown;
  /** Observation labels stamped on every trace event (spec 6.3). */
  labels: Record<string, unknown>;
  captureToken: string | null;
  /** How long its trace events may wait before they are posted (the studio's `batch_ms`, D-111). */
  captureBatchMs?: number;
  /** Per-request overrides handed to the graph's configurable. */
  configurable: Record<string, unknown>;
  /** The client follows the answer as it is produced (token deltas wanted). */
  streaming: boolean;
  /** Continue the thread from its latest checkpoint with no new input (continue.ts). */
  fromCheckpoint?: boolean;
  /** The studio's breakpoints, step mode or continue (a2a/request-meta.ts); null for other callers. */
  debug?: DebugControl | null;
  /** A replayed studio run's recorded answers (call-record.ts); null for other callers. */
  replay?: ReplayPlan | null;
  /** A studio run's tool mocks (call-mocks.ts, D-102); null for other callers. */
  mocks?: MockPlan | null;
  signal: AbortSignal;
  /** Whether the turn was canceled (tasks/cancel): it then reports nothing more. */
  canceled(): boolean;
}

/** What the binding publishes. */
export interface TurnEvents {
  /** The turn began (the task exists and is working). */
  started(): void;
  /** A token of the exit node's answer; `append` after the first one. */
  token(text: string, append: boolean): void;
  inputRequired(question: string, value: Record<string, unknown>): void;
  completed(response: AgentResponse): void;
  /** `body` is the failure's DataPart (spec 7.2) with the failing node and source. */
  failed(failure: AgentError, body: Record<string, unknown>): void;
}
