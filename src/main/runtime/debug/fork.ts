// Fork a thread at a checkpoint into a new thread of its own (docs/playground-api.md, "Fork and
// re-run from a checkpoint"). The new thread starts with a copy of the checkpoint (its
// checkpoint and channel values, not its pending writes: a step that was under way there, a
// fan-out included, runs again whole from the checkpoint before it) and a copy of the
// conversation the runtime keeps beside it (the transcript up to that checkpoint's turn, the
// summary); an edit is applied with LangGraph's updateState as the node that wrote the
// checkpoint, so the graph goes on along that node's edges. The original thread is only read.
// A conversation branch (`branch`) is the same copy at the checkpoint where a turn ended: the
// transcript keeps that turn whole, and the branch's next message starts the next turn.
import { uuid6, type BaseCheckpointSaver, type CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import { coerceMessageLikeToMessage } from '@langchain/core/messages';
import { TURN_TASK_CONFIG_KEY, type ForkRequest, type ForkResult } from '../../../shared/thread-state.ts';
import type { MemoryStore, TranscriptMessage } from '../store/types.ts';
import { SUMMARY_KEY } from '../memory/fold.ts';
import { CheckpointNotFound, type ThreadStateReader } from './state.ts';
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
  getState(config: Record<string, unknown>): Promise<{ next: readonly string[]; config?: { configurable?: Record<string, unknown> } }>;
}

export interface ForkDeps {
  agentId: string;
  graph: () => ForkGraph;
  saver: () => BaseCheckpointSaver;
  reader: ThreadStateReader;
  store: Pick<MemoryStore, 'readTranscript' | 'appendTranscript' | 'getMemory' | 'putMemory' | 'threadUser' | 'claimThread' | 'deleteThread' | 'threadOwner'>;
}

/** The copy's metadata key: how many turns the conversation had up to the forked checkpoint. */
const FORKED_TURNS = 'forked_turns';
/** The copy's metadata key of a branch: its turns ended at the copy (none is continued). */
const BRANCHED = 'branched';

const MESSAGE_TYPES = new Set(['human', 'ai', 'system', 'tool', 'function', 'generic', 'developer', 'remove']);

/** Message lists arrive as the state endpoints write them ({type, content, ...}): back to
 * LangChain messages, so reducers and nodes get what they always get. */
function revive(value: unknown): unknown {
  if (!Array.isArray(value) || value.length === 0) return value;
  const isMessage = (v: unknown) => typeof v === 'object' && v !== null && MESSAGE_TYPES.has((v as { type?: unknown }).type as string) && 'content' in v;
  return value.every(isMessage) ? value.map((m) => coerceMessageLikeToMessage(m as Parameters<typeof coerceMessageLikeToMessage>[0])) : value;
}

/** The state's own channels (not LangGraph's internal ones, `__start__`, `branch:...`). */
export function stateChannels(graph: ForkGraph): string[] {
  return Object.keys(graph.channels).filter((c) => !c.startsWith('__') && !c.includes(':'));
}

export class ThreadForker {
  constructor(private readonly d: ForkDeps) {}

  async fork(threadId: string, req: ForkRequest & { checkpoint_ns: string }): Promise<ForkResult> {
    const { checkpoint_id: checkpointId, checkpoint_ns: ns, thread_id: newThread, values, branch = false } = req;
    if (ns)
      throw new InvalidEdit('Forking inside a subgraph is not supported yet: fork at the parent checkpoint that runs the subgraph.', {
        field: 'checkpoint_ns',
      });
    if (newThread === threadId || (await this.d.store.threadOwner(newThread)) !== null)
      throw new InvalidEdit(`Thread '${newThread}' already exists.`, { field: 'thread_id' });
    const graph = this.d.graph();
    const edit = values && Object.keys(values).length ? values : undefined;
    const known = new Set(stateChannels(graph));
    const unknown = Object.keys(edit ?? {}).filter((c) => !known.has(c));
    if (unknown.length)
      throw new InvalidEdit(`The state has no channel ${unknown.map((c) => `'${c}'`).join(', ')}; its channels are ${[...known].join(', ')}.`, { unknown });
    const detail = await this.d.reader.detail(threadId, checkpointId, ns); // CheckpointNotFound for a wrong id
    const writers = Object.keys(detail.writes);
    if (edit && writers.length > 1)
      throw new InvalidEdit(`Nodes ${writers.join(', ')} wrote this checkpoint together: edit the checkpoint before it or after it.`, { writers });
    const asNode = edit ? (writers[0] ?? '__input__') : null;
    const saver = this.d.saver();
    const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } });
    if (!tuple) throw new CheckpointNotFound(`No checkpoint '${checkpointId}' in thread '${threadId}'.`);
    const turns = await this.turnsUpTo(threadId, checkpointId);
    await this.d.store.claimThread(this.d.agentId, newThread, (await this.d.store.threadUser(this.d.agentId, threadId)) ?? '');
    try {
      const meta = { ...(tuple.metadata ?? {}) } as CheckpointMetadata & Record<string, unknown>;
      delete meta[TURN_TASK_CONFIG_KEY];
      const copy = { ...tuple.checkpoint, id: uuid6(-3) };
      const forkedFrom = { thread_id: threadId, checkpoint_id: checkpointId };
      const metadata = {
        ...meta,
        source: 'fork',
        parents: {},
        forked_from: forkedFrom,
        [FORKED_TURNS]: turns,
        ...(branch ? { [BRANCHED]: true } : {}),
      } as CheckpointMetadata;
      let config = await saver.put({ configurable: { thread_id: newThread, checkpoint_ns: '' } }, copy, metadata, tuple.checkpoint.channel_versions);
      if (edit) {
        const revived = Object.fromEntries(Object.entries(edit).map(([k, v]) => [k, revive(v)]));
        try {
          config = await graph.updateState({ configurable: { thread_id: newThread } }, revived, asNode!);
        } catch (err) {
          throw new InvalidEdit(`The state cannot take this edit: ${(err as Error).message}`, { as_node: asNode });
        }
      }
      const after = await graph.getState({ configurable: { thread_id: newThread } });
      if (!after.next.length && !branch)
        throw new InvalidEdit('Nothing would run from this checkpoint: the turn ended there. Fork at an earlier step.', { next: [] });
      await this.copyConversation(threadId, newThread, turns, branch);
      return {
        thread_id: newThread,
        checkpoint_id: (after.config?.configurable?.checkpoint_id as string | undefined) ?? (config.configurable?.checkpoint_id as string),
        as_node: asNode,
        written_by: writers,
        next: [...after.next],
        forked_from: { thread_id: threadId, checkpoint_id: checkpointId, checkpoint_ns: ns },
      };
    } catch (err) {
      await this.d.store.deleteThread(newThread); // a refused fork leaves nothing behind
      throw err;
    }
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
