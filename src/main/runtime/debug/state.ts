// debug/ owns what the studio's debugger reads from the runtime: a thread's checkpoints, each
// with the graph's state, its pending writes and the tasks that run next
// (docs/playground-api.md, "The state at every step"). It reads through the loaded graph
// (LangGraph's getStateHistory / getState), so `next` and the tasks are LangGraph's own, and
// it never writes. Routes are in routes.ts.
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { StateSnapshot } from '@langchain/langgraph';
import { TURN_TASK_CONFIG_KEY, type CheckpointPage, type CheckpointSummary, type RuntimeCheckpointDetail } from '../../../shared/thread-state.ts';
import { jsonState } from './json-state.ts';

/** What the reader needs of the loaded graph. */
export interface StateGraphReader {
  getStateHistory(
    config: Record<string, unknown>,
    options?: { limit?: number; before?: Record<string, unknown>; filter?: Record<string, unknown> },
  ): AsyncIterableIterator<StateSnapshot>;
  getState(config: Record<string, unknown>, options?: { subgraphs?: boolean }): Promise<StateSnapshot>;
  checkpointer?: BaseCheckpointSaver | boolean;
}

export class CheckpointNotFound extends Error {}

const idOf = (config: { configurable?: Record<string, unknown> } | undefined): string | null =>
  (config?.configurable?.checkpoint_id as string | undefined) ?? null;
const nsOf = (config: { configurable?: Record<string, unknown> } | undefined): string => (config?.configurable?.checkpoint_ns as string | undefined) ?? '';

/** Which node ran in the step that made `parent`'s child, and which channels it wrote (its
 * tasks' results are those writes; a node that returned nothing wrote none). */
function writesFrom(parent: StateSnapshot | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of parent?.tasks ?? []) {
    const written = t.result && typeof t.result === 'object' ? Object.keys(t.result) : [];
    out[t.name] = [...new Set([...(out[t.name] ?? []), ...written])];
  }
  return out;
}

function summary(s: StateSnapshot, parent: StateSnapshot | undefined): CheckpointSummary {
  const meta = (s.metadata ?? {}) as Record<string, unknown>;
  const task = meta[TURN_TASK_CONFIG_KEY];
  return {
    checkpoint_id: idOf(s.config) ?? '',
    checkpoint_ns: nsOf(s.config),
    parent_checkpoint_id: idOf(s.parentConfig),
    step: typeof meta.step === 'number' ? meta.step : -1,
    source: typeof meta.source === 'string' ? meta.source : 'loop',
    created_at: s.createdAt ?? '',
    next: [...s.next],
    writes: writesFrom(parent),
    task_id: typeof task === 'string' ? task : null,
  };
}

/** Every channel's value, JSON-safe, and the bytes of each. */
function jsonValues(s: StateSnapshot): { values: Record<string, unknown>; sizes: Record<string, number> } {
  const values: Record<string, unknown> = {};
  const sizes: Record<string, number> = {};
  const raw = s.values && typeof s.values === 'object' ? (s.values as Record<string, unknown>) : { value: s.values };
  for (const [channel, value] of Object.entries(raw)) {
    values[channel] = jsonState(value);
    sizes[channel] = Buffer.byteLength(JSON.stringify(values[channel]));
  }
  return { values, sizes };
}

export class ThreadStateReader {
  constructor(private readonly graph: () => StateGraphReader) {}

  /** A page of the thread's top-level checkpoints, newest first. */
  async page(threadId: string, limit: number, before: string | undefined, taskId?: string): Promise<CheckpointPage> {
    const got: StateSnapshot[] = [];
    const options = {
      limit: limit + 1,
      ...(before ? { before: { configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: before } } } : {}),
      ...(taskId ? { filter: { [TURN_TASK_CONFIG_KEY]: taskId } } : {}),
    };
    for await (const s of this.graph().getStateHistory({ configurable: { thread_id: threadId, checkpoint_ns: '' } }, options)) got.push(s);
    const top = got.slice(0, limit).map((s, i) => summary(s, got[i + 1] && idOf(got[i + 1]!.config) === idOf(s.parentConfig) ? got[i + 1] : undefined));
    // The page's last item's writes need its parent, the one read past the page.
    const more = got.length > limit;
    const next_before = more ? top[top.length - 1]!.checkpoint_id : null;
    // A subgraph's checkpoints come with the top checkpoint whose task ran it (they were written
    // after it, before its child), in id (time) order, their namespace shown.
    const inner: CheckpointSummary[] = [];
    for (const s of got.slice(0, limit)) inner.push(...(await this.subgraphCheckpoints(threadId, s, taskId)));
    const items = inner.length ? [...top, ...inner].sort((a, b) => (a.checkpoint_id < b.checkpoint_id ? 1 : a.checkpoint_id > b.checkpoint_id ? -1 : 0)) : top;
    return { items, next_before };
  }

  /** The checkpoints of the subgraphs a checkpoint's tasks ran (deeper ones too), newest first. */
  private async subgraphCheckpoints(threadId: string, s: StateSnapshot, taskId: string | undefined): Promise<CheckpointSummary[]> {
    const out: CheckpointSummary[] = [];
    for (const t of s.tasks ?? []) {
      const ns = t.state && 'configurable' in t.state ? nsOf(t.state as { configurable?: Record<string, unknown> }) : '';
      if (!ns) continue;
      const got: StateSnapshot[] = [];
      const options = taskId ? { filter: { [TURN_TASK_CONFIG_KEY]: taskId } } : undefined;
      for await (const sub of this.graph().getStateHistory({ configurable: { thread_id: threadId, checkpoint_ns: ns } }, options)) got.push(sub);
      got.forEach((sub, i) => out.push(summary(sub, got[i + 1] && idOf(got[i + 1]!.config) === idOf(sub.parentConfig) ? got[i + 1] : undefined)));
      for (const sub of got) out.push(...(await this.subgraphCheckpoints(threadId, sub, taskId)));
    }
    return out;
  }

  /** One checkpoint with every channel's value, its pending writes and the next tasks. */
  async detail(threadId: string, checkpointId: string, ns: string, withParentValues = false): Promise<RuntimeCheckpointDetail> {
    const graph = this.graph();
    const config = { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } };
    const s = await this.snapshot(graph, config);
    if (!s || idOf(s.config) !== checkpointId)
      throw new CheckpointNotFound(`No checkpoint '${checkpointId}' in thread '${threadId}'${ns ? ` (namespace '${ns}')` : ''}.`);
    const parent = s.parentConfig ? await this.snapshot(graph, { configurable: { ...s.parentConfig.configurable, thread_id: threadId } }) : undefined;
    const { values, sizes } = jsonValues(s);
    const saver = typeof graph.checkpointer === 'object' ? graph.checkpointer : undefined;
    const tuple = saver ? await saver.getTuple(config) : undefined;
    return {
      ...summary(s, parent ?? undefined),
      values,
      ...(withParentValues ? { parent_values: parent ? jsonValues(parent).values : null } : {}),
      sizes,
      pending_writes: (tuple?.pendingWrites ?? []).map(([taskId, channel, value]) => ({ task_id: taskId, channel, value: jsonState(value) })),
      tasks: s.tasks.map((t) => ({
        id: t.id,
        name: t.name,
        error: t.error === undefined || t.error === null ? null : t.error instanceof Error ? t.error.message : String(t.error),
        interrupts: t.interrupts.map((i) => jsonState(i.value)),
        checkpoint_ns: t.state && 'configurable' in t.state ? nsOf(t.state as { configurable?: Record<string, unknown> }) || null : null,
      })),
    };
  }

  private async snapshot(graph: StateGraphReader, config: Record<string, unknown>): Promise<StateSnapshot | null> {
    // LangGraph answers an unknown checkpoint with an empty snapshot: no metadata, no time.
    const s = await graph.getState(config);
    return s?.metadata && s.createdAt ? s : null;
  }
}
