// a2a/ owns the A2A 0.3 binding on @a2a-js/sdk: the JSON-RPC gate and routes, the agent
// card, the SDK's executor and request handler (with the cross-replica answers), and the
// mapping of A2A parts. It sits in front of execution/ and is the only folder that imports
// the SDK's server; the move to the SDK's 1.x server replaces this folder alone.
//
// The A2A executor (@a2a-js/sdk's AgentExecutor): one A2A message is one turn
// (execution/turn.ts) on the thread named by its contextId. This file is the binding only:
// the task and its status and artifact events (spec 3, 4.1), cancel, and the mapping of parts
// (mapping.ts). An interrupt becomes input-required, a failure `failed` with the spec 7.2
// DataPart.
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { Message, Part, Task, TaskState } from '@a2a-js/sdk';
import type { AgentError } from '../../../sdk/errors.ts';
import type { AgentResponse } from '../../../sdk/state.ts';
import type { Generation, Registry } from '../project/registry.ts';
import { noteRequest } from '../observability/request-context.ts';
import { runTurn, type TurnDeps, type TurnEvents } from '../execution/turn.ts';
import { storeUnavailableFailure } from '../execution/errors.ts';
import { OBSERVATION_LABEL_KEYS, type RequestMeta } from './request-meta.ts';
import { requestMetaOf } from './send-admission.ts';
import { principalOf } from '../auth/principal.ts';
import { agentMessage, applyDefaultSchema, ARTIFACT_ID, artifactName, requestFromMessage, responseParts } from './mapping.ts';

export interface ExecutorDeps extends Omit<TurnDeps, 'checkpointer'> {
  registry: Registry;
}

interface Running {
  controller: AbortController;
  canceled: boolean;
  /** The task's final event is out (a cancel or the runtime's shutdown published it): the
   * turn publishes nothing more. */
  closed?: boolean;
  /** The turn's reports as A2A events and its bus, for a final event published from outside
   * the turn (endAll). */
  events?: TurnEvents;
  bus?: ExecutionEventBus;
}

export class GraphAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, Running>();
  /** contextId of each running task, for the canceled status event. */
  private readonly contextOf = new Map<string, string>();
  private readonly turnDeps: TurnDeps;

  constructor(private readonly deps: ExecutorDeps) {
    this.turnDeps = { ...deps, checkpointer: () => deps.registry.checkpointer };
  }

  get activeCount(): number {
    return this.running.size;
  }

  /** Whether this process runs the task now. */
  runsHere(taskId: string): boolean {
    return this.running.has(taskId);
  }

  cancelTask = async (taskId: string, eventBus: ExecutionEventBus): Promise<void> => {
    const run = this.running.get(taskId);
    if (run) {
      run.canceled = true;
      run.closed = true;
      run.controller.abort(new Error('task canceled'));
    }
    this.deps.stats.canceled += 1;
    const contextId = this.contextOf.get(taskId) ?? '';
    eventBus.publish({
      kind: 'status-update',
      taskId,
      contextId,
      status: {
        state: 'canceled',
        timestamp: new Date().toISOString(),
        message: agentMessage([{ kind: 'text', text: 'The task was canceled.' }], taskId, contextId),
      },
      final: true,
    });
    eventBus.finished();
  };

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = ctx;
    noteRequest({ task_id: taskId, context_id: contextId });
    const meta = withActingUser(requestMetaOf(ctx.context), ctx); // the request's own metadata (send-admission.ts)
    const run: Running = { controller: new AbortController(), canceled: false };
    this.running.set(taskId, run);
    this.contextOf.set(taskId, contextId);
    const gen = this.deps.registry.current; // spec: in-flight invocations finish on their generation
    const events = taskEvents(ctx, bus, gen, run);
    Object.assign(run, { events, bus });
    try {
      await runTurn(
        this.turnDeps,
        {
          gen,
          taskId,
          contextId,
          messageId: userMessage.messageId,
          partKinds: userMessage.parts.map((p) => p.kind),
          request: requestFromMessage(userMessage, meta.metadata, contextId, taskId),
          history: meta.history,
          labels: labelsOf(meta),
          captureToken: meta.captureToken,
          captureBatchMs: meta.captureBatchMs,
          configurable: meta.configurable,
          streaming: meta.streaming,
          fromCheckpoint: meta.fromCheckpoint === true,
          debug: meta.debug ?? null,
          replay: meta.replay ?? null,
          mocks: meta.mocks ?? null,
          signal: run.controller.signal,
          canceled: () => run.canceled,
        },
        events,
      );
    } finally {
      this.running.delete(taskId);
      this.contextOf.delete(taskId);
      if (!run.closed) bus.finished();
    }
  };

  /** The task's save failed (the store unreachable, or closed under it; settling.ts): nobody follows its
   * events any more (the SDK failed the request), so its turn stops now and publishes nothing;
   * its `failed` state is written once the store takes writes (store-outage.ts). */
  abandon(taskId: string): void {
    const run = this.running.get(taskId);
    if (!run || run.closed) return;
    run.closed = true;
    run.controller.abort(storeUnavailableFailure());
    run.bus?.finished();
  }

  /** The runtime shuts down (http/shutdown.ts): every running turn ends now `failed` with
   * `failure` (D-49): its final status event goes out at once (a stream gets it and ends, a
   * blocking send answers with it, the store saves it and, on PostgreSQL, drops its lease)
   * and the turn is aborted, publishing nothing more. Returns the tasks ended. */
  endAll(failure: AgentError): { taskId: string; contextId: string }[] {
    const ended: { taskId: string; contextId: string }[] = [];
    for (const [taskId, run] of this.running) {
      if (run.closed || !run.events || !run.bus) continue;
      run.events.failed(failure, failure.toDataPart());
      run.closed = true;
      run.controller.abort(failure);
      run.bus.finished();
      ended.push({ taskId, contextId: this.contextOf.get(taskId) ?? '' });
    }
    return ended;
  }
}

/** For an authenticated caller, metadata.userId (what the graph reads, and the spec 6.3 label)
 * is the user the request acts as (ownership.ts): an untrusted caller's own claim is replaced,
 * never believed. Without authentication the metadata stays as sent. */
function withActingUser(meta: RequestMeta, ctx: RequestContext): RequestMeta {
  const principal = principalOf(ctx.context);
  return principal.scheme === 'none' ? meta : { ...meta, metadata: { ...meta.metadata, userId: principal.name } };
}

/** The observation labels of spec 6.3 found in the request's metadata. */
function labelsOf(meta: RequestMeta): Record<string, unknown> {
  const labels: Record<string, unknown> = {};
  for (const key of OBSERVATION_LABEL_KEYS) if (meta.metadata[key] !== undefined) labels[key] = meta.metadata[key];
  return labels;
}

/** A turn's reports as the task's A2A events. Nothing is published for a closed task but
 * what closed it published (cancelTask, endAll). */
function taskEvents(ctx: RequestContext, bus: ExecutionEventBus, gen: Generation, run: Running): TurnEvents {
  const { taskId, contextId, userMessage } = ctx;
  const now = () => new Date().toISOString();
  const publishStatus = (state: TaskState, message?: Message) => {
    if (run.closed) return;
    bus.publish({ kind: 'status-update', taskId, contextId, status: { state, timestamp: now(), ...(message ? { message } : {}) }, final: state !== 'working' });
  };
  /** The complete artifact, replacing any streamed chunks. */
  const publishArtifact = (name: string, parts: Part[]) =>
    !run.closed &&
    bus.publish({ kind: 'artifact-update', taskId, contextId, append: false, lastChunk: true, artifact: { artifactId: ARTIFACT_ID, name, parts } });
  return {
    started: () => {
      if (!ctx.task) {
        const task: Task = { kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: now() }, history: [userMessage], artifacts: [] };
        bus.publish(task);
      }
      publishStatus('working');
    },
    token: (text, append) =>
      !run.closed &&
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        append,
        lastChunk: false,
        artifact: { artifactId: ARTIFACT_ID, name: artifactName(null, gen), parts: [{ kind: 'text', text }] },
      }),
    inputRequired: (question, value) =>
      publishStatus(
        'input-required',
        agentMessage(
          [
            { kind: 'text', text: question },
            { kind: 'data', data: { ...value, inputRequired: true } },
          ],
          taskId,
          contextId,
        ),
      ),
    completed: (response: AgentResponse) => {
      publishArtifact(artifactName(response, gen), applyDefaultSchema(responseParts(response), gen.project.manifest.output.schema));
      publishStatus('completed');
    },
    failed: (failure: AgentError, body) => {
      publishArtifact(artifactName(null, gen), [{ kind: 'data', data: body }]);
      publishStatus(
        'failed',
        agentMessage(
          [
            { kind: 'text', text: failure.message },
            { kind: 'data', data: body },
          ],
          taskId,
          contextId,
        ),
      );
    },
  };
}
