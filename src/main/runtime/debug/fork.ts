// Fork a thread at a checkpoint into a new thread of its own (docs/playground-api.md, "Fork and
// re-run from a checkpoint"). The new thread starts with a copy of the checkpoint (its
// checkpoint and channel values, not its pending writes: a step that was under way there, a
// fan-out included, runs again whole from the checkpoint before it) and a copy of the
// conversation the runtime keeps beside it (the transcript up to that checkpoint's turn, the
// summary); an edit is applied with LangGraph's updateState as the node that wrote the
// checkpoint, so the graph goes on along that node's edges. The original thread is only read.
// A conversation branch (`branch`) is the same copy at the checkpoint where a turn ended: the
// transcript keeps that turn whole, and the branch's next message starts the next turn.
import { uuid6, type BaseCheckpointSaver, type CheckpointMetadata, type CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { coerceMessageLikeToMessage } from '@langchain/core/messages';
import { TURN_TASK_CONFIG_KEY, type ForkRequest, type ForkResult } from '../../../shared/thread-state.ts';
import type { MemoryStore, TranscriptMessage } from '../store/types.ts';
import { SUMMARY_KEY } from '../memory/fold.ts';
import { CheckpointNotFound, type ThreadStateReader } from './state.ts';
import type { EditChecker } from './state-schema.ts';
import { pathOfNamespace, subgraphsOf } from '../execution/subgraphs.ts';
import { SUBGRAPH_NODE_SEPARATOR } from '../../../shared/breakpoints.ts';
import { answersBetween } from './answers.ts';

/** An edit the state cannot take; nothing was created. */
export class InvalidEdit extends Error {
  constructor(
    message: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** What the forker needs of the loaded graph. */
export interface ForkGraph {
  channels: Record<string, unknown>;
  updateState(config: Record<string, unknown>, values: Record<string, unknown>, asNode?: string): Promise<{ configurable?: Record<string, unknown> }>;
  getState(
    config: Record<string, unknown>,
  ): Promise<{ next: readonly string[]; config?: { configurable?: Record<string, unknown> }; tasks?: readonly { id: string; name: string }[] }>;
}

export interface ForkDeps {
  agentId: string;
  graph: () => ForkGraph;
  saver: () => BaseCheckpointSaver;
  reader: ThreadStateReader;
  /** The state's schema: an edit is checked against it before anything is written. */
  checker: EditChecker;
  store: Pick<MemoryStore, 'readTranscript' | 'appendTranscript' | 'getMemory' | 'putMemory' | 'threadUser' | 'claimThread' | 'deleteThread' | 'threadOwner'>;
}

/** The copy's metadata key: how many turns the conversation had up to the forked checkpoint. */
const FORKED_TURNS = 'forked_turns';
/** The copy's metadata key of a branch: its turns ended at the copy (none is continued). */
const BRANCHED = 'branched';

const MESSAGE_TYPES = new Set(['human', 'ai', 'system', 'tool', 'function', 'generic', 'developer', 'remove']);

/** Message lists arrive as the state endpoints write them ({type, content, ...}): back to
 * LangChain messages, so reducers and nodes get what they always get. */
export function revive(value: unknown): unknown {
  if (!Array.isArray(value) || value.length === 0) return value;
  const isMessage = (v: unknown) => typeof v === 'object' && v !== null && MESSAGE_TYPES.has((v as { type?: unknown }).type as string) && 'content' in v;
  return value.every(isMessage) ? value.map((m) => coerceMessageLikeToMessage(m as Parameters<typeof coerceMessageLikeToMessage>[0])) : value;
}

export class ThreadForker {
  constructor(private readonly d: ForkDeps) {}

  async fork(threadId: string, req: ForkRequest & { checkpoint_ns: string }): Promise<ForkResult> {
    const { checkpoint_id: checkpointId, checkpoint_ns: ns, thread_id: newThread, values, branch = false } = req;
    if (newThread === threadId || (await this.d.store.threadOwner(newThread)) !== null)
      throw new InvalidEdit(`Thread '${newThread}' already exists.`, { field: 'thread_id' });
    const graph = this.d.graph();
    const edit = values && Object.keys(values).length ? values : undefined;
    // Inside a subgraph the edit is checked against the subgraph's own channels.
    const path = pathOfNamespace(ns);
    const owner = path ? (subgraphsOf(graph).get(path) as ForkGraph | undefined) : graph;
    if (!owner) throw new InvalidEdit(`The loaded graph has no subgraph '${path}' (namespace '${ns}').`, { field: 'checkpoint_ns' });
    const refused = edit ? this.d.checker.problems(owner, edit) : null;
    if (refused) throw new InvalidEdit(refused.message, refused.detail);
    const detail = await this.d.reader.detail(threadId, checkpointId, ns); // CheckpointNotFound for a wrong id
    const writers = Object.keys(detail.writes);
    if (edit && writers.length > 1)
      throw new InvalidEdit(`Nodes ${writers.join(', ')} wrote this checkpoint together: edit the checkpoint before it or after it.`, { writers });
    const asNode = edit ? (writers[0] ?? '__input__') : null;
    const saver = this.d.saver();
    const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } });
    if (!tuple) throw new CheckpointNotFound(`No checkpoint '${checkpointId}' in thread '${threadId}'.`);
    // Inside a subgraph: the top graph's checkpoint that runs it is copied first (below).
    const parents = (tuple.metadata?.parents ?? {}) as Record<string, string>;
    const top = ns ? parents[''] : checkpointId;
    if (!top) throw new InvalidEdit(`Checkpoint '${checkpointId}' does not name the parent checkpoint that runs its subgraph.`, { field: 'checkpoint_ns' });
    const topTuple = ns ? await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: top } }) : tuple;
    if (!topTuple) throw new CheckpointNotFound(`No checkpoint '${top}' in thread '${threadId}'.`);
    const turns = await this.turnsUpTo(threadId, top);
    await this.d.store.claimThread(this.d.agentId, newThread, (await this.d.store.threadUser(this.d.agentId, threadId)) ?? '');
    try {
      const forkedFrom = { thread_id: threadId, checkpoint_id: checkpointId, ...(ns ? { checkpoint_ns: ns } : {}) };
      const extra = { forked_from: forkedFrom, [FORKED_TURNS]: turns, ...(branch ? { [BRANCHED]: true } : {}) };
      let config = await this.putCopy(newThread, '', topTuple, {}, extra);
      // A subgraph's checkpoint goes into the namespace the new thread's run will give it: the
      // subgraph's task id derives from the parent's checkpoint id, which the copy changed.
      const newNs = ns ? await this.carry(graph, threadId, newThread, ns, tuple, parents, config.configurable?.checkpoint_id as string, extra) : '';
      if (newNs) config = { configurable: { thread_id: newThread, checkpoint_ns: newNs } };
      if (edit) {
        const revived = Object.fromEntries(Object.entries(edit).map(([k, v]) => [k, revive(v)]));
        try {
          config = await graph.updateState({ configurable: { thread_id: newThread, ...(newNs ? { checkpoint_ns: newNs } : {}) } }, revived, asNode!);
        } catch (err) {
          throw new InvalidEdit(`The state cannot take this edit: ${(err as Error).message}`, { as_node: asNode });
        }
      }
      const after = await graph.getState({ configurable: { thread_id: newThread } });
      if (!after.next.length && !branch)
        throw new InvalidEdit('Nothing would run from this checkpoint: the turn ended there. Fork at an earlier step.', { next: [] });
      const inside = newNs ? await graph.getState({ configurable: { thread_id: newThread, checkpoint_ns: newNs } }) : null;
      await this.copyConversation(threadId, newThread, turns, branch);
      return {
        thread_id: newThread,
        checkpoint_id: ((inside ?? after).config?.configurable?.checkpoint_id as string | undefined) ?? (config.configurable?.checkpoint_id as string),
        ...(newNs ? { checkpoint_ns: newNs } : {}),
        as_node: asNode,
        written_by: writers,
        next: inside?.next.length ? inside.next.map((n) => `${path}${SUBGRAPH_NODE_SEPARATOR}${n}`) : [...after.next],
        forked_from: { thread_id: threadId, checkpoint_id: checkpointId, checkpoint_ns: ns },
      };
    } catch (err) {
      await this.d.store.deleteThread(newThread); // a refused fork leaves nothing behind
      throw err;
    }
  }

  /** Puts a copy of a checkpoint (not its pending writes) into the new thread's namespace `ns`. */
  private async putCopy(thread: string, ns: string, tuple: CheckpointTuple, parents: Record<string, string>, extra: Record<string, unknown>) {
    const meta = { ...(tuple.metadata ?? {}) } as CheckpointMetadata & Record<string, unknown>;
    delete meta[TURN_TASK_CONFIG_KEY];
    const metadata = { ...meta, source: 'fork', parents, ...extra } as CheckpointMetadata;
    const copy = { ...tuple.checkpoint, id: uuid6(-3) };
    return this.d.saver().put({ configurable: { thread_id: thread, checkpoint_ns: ns } }, copy, metadata, tuple.checkpoint.channel_versions);
  }

  /** Carries a subgraph's checkpoint (`inner:<task>`, or deeper `inner:<task>|deeper:<task>`)
   * into the new thread, level by level: each level's namespace is the task the new thread's
   * parent checkpoint runs for that node, and its checkpoint the one the original's parents name
   * (the checkpoint itself at the last level). Answers the new namespace. */
  private async carry(
    graph: ForkGraph,
    from: string,
    to: string,
    ns: string,
    tuple: CheckpointTuple,
    parents: Record<string, string>,
    topCopy: string,
    extra: Record<string, unknown>,
  ): Promise<string> {
    const levels = ns.split('|');
    const newParents: Record<string, string> = { '': topCopy };
    let newNs = '';
    for (const [i, part] of levels.entries()) {
      const name = part.split(':')[0]!;
      const state = await graph.getState({ configurable: { thread_id: to, ...(newNs ? { checkpoint_ns: newNs } : {}) } });
      const task = (state as { tasks?: { id: string; name: string }[] }).tasks?.find((t) => t.name === name);
      if (!task)
        throw new InvalidEdit(`The checkpoint before subgraph '${name}' does not run it: fork at a checkpoint of the top graph.`, { field: 'checkpoint_ns' });
      const oldNs = levels.slice(0, i + 1).join('|');
      newNs = newNs ? `${newNs}|${name}:${task.id}` : `${name}:${task.id}`;
      const last = i === levels.length - 1;
      const source = last ? tuple : await this.d.saver().getTuple({ configurable: { thread_id: from, checkpoint_ns: oldNs, checkpoint_id: parents[oldNs] } });
      if (!source) throw new CheckpointNotFound(`No checkpoint '${parents[oldNs]}' in thread '${from}' (namespace '${oldNs}').`);
      const put = await this.putCopy(to, newNs, source, { ...newParents }, last ? extra : {});
      newParents[newNs] = put.configurable?.checkpoint_id as string;
    }
    return newNs;
  }

  /** How many turns (human messages) the thread had up to the checkpoint, its own included: in
   * a fork's thread the count its copy carries, then one per turn's `input` checkpoint (a
   * metadata filter in SQL: no state is read) and one per answer to the agent's question
   * (answersUpTo), or, for a thread checkpointed once per turn (durability `exit`, no input
   * checkpoints), one per turn task stamped on its checkpoints. */
  private async turnsUpTo(threadId: string, checkpointId: string): Promise<number> {
    const config = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
    const upTo = async (source: string | null, each: (id: string, meta: Record<string, unknown>) => void) => {
      for await (const t of this.d.saver().list(config, source ? { filter: { source } } : undefined)) {
        const id = t.config.configurable?.checkpoint_id as string;
        if (id <= checkpointId) each(id, (t.metadata ?? {}) as Record<string, unknown>);
      }
    };
    let [base, copy, branched] = [0, '', false];
    await upTo('fork', (id, meta) => {
      if (id > copy && typeof meta[FORKED_TURNS] === 'number') [base, copy, branched] = [meta[FORKED_TURNS], id, meta[BRANCHED] === true];
    });
    let [inputs, all] = [0, 0]; // up to the checkpoint, and in the whole thread (after the copy)
    for await (const t of this.d.saver().list(config, { filter: { source: 'input' } })) {
      const id = t.config.configurable?.checkpoint_id as string;
      if (id > copy) [inputs, all] = [inputs + (id <= checkpointId ? 1 : 0), all + 1];
    }
    if (inputs || copy === checkpointId) return base + inputs + (inputs ? await this.answersUpTo(threadId, copy, base + all, checkpointId) : 0);
    const tasks = new Set<string>();
    await upTo(null, (id, meta) => {
      if (id > copy && typeof meta[TURN_TASK_CONFIG_KEY] === 'string') tasks.add(meta[TURN_TASK_CONFIG_KEY]);
    });
    // In a fork's thread the first task continues the copied turn (a branch's starts a new one).
    return base + Math.max(0, tasks.size - (copy && !branched ? 1 : 0));
  }

  /** Answers to the agent's questions before the checkpoint (each a human message without an
   * input checkpoint, answers.ts): looked for only when the transcript has more human messages
   * than the thread has input checkpoints (plus its copy's count), so a thread with no answered
   * question reads no state for it. */
  private async answersUpTo(threadId: string, copy: string, turns: number, checkpointId: string): Promise<number> {
    const humans = (await this.d.store.readTranscript(threadId)).filter((m) => m.role === 'human').length;
    return humans > turns ? answersBetween(this.d.saver(), threadId, copy, checkpointId) : 0;
  }

  /** The conversation before the checkpoint: the transcript up to the human message of the
   * checkpoint's turn (one human message per turn; for a branch, up to the end of that turn),
   * and the thread's summary as it is now. */
  private async copyConversation(from: string, to: string, turns: number, whole: boolean): Promise<void> {
    const kept: TranscriptMessage[] = [];
    let humans = 0;
    for (const m of await this.d.store.readTranscript(from)) {
      if (m.role === 'human') humans += 1;
      if (humans > turns || (humans === turns && m.role === 'ai' && !whole)) break;
      kept.push(m);
    }
    if (kept.length) await this.d.store.appendTranscript(this.d.agentId, to, kept);
    const summary = await this.d.store.getMemory(this.d.agentId, from, SUMMARY_KEY);
    if (summary !== undefined) await this.d.store.putMemory(this.d.agentId, to, SUMMARY_KEY, summary);
  }
}
