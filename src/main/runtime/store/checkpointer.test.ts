// The SQLite checkpointer under real LangGraph graphs, on real database files: persistence
// across invocations and reopen, interrupt/resume through stored pending writes, subgraph
// namespaces, forks, list() options, and O(1) latest-checkpoint lookup (spec 2.4).
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { Annotation, Command, END, INTERRUPT, MessagesAnnotation, START, StateGraph, interrupt } from '@langchain/langgraph';
import { emptyCheckpoint, uuid6, type BaseCheckpointSaver, type Checkpoint, type CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { LATEST_CHECKPOINT_SQL } from './checkpoint-statements.ts';
import { cfg, chatGraph, useTempStoreFile } from './test-support.ts';

const temp = useTempStoreFile('ckpt-');
const open = () => temp.open();

/** A node that asks for approval with interrupt() and reports the answer. */
function approvalGraph(checkpointer?: BaseCheckpointSaver) {
  return new StateGraph(MessagesAnnotation)
    .addNode('ask', () => {
      const answer = interrupt({ question: 'approve?' });
      return { messages: [new AIMessage(`answer: ${String(answer)}`)] };
    })
    .addEdge(START, 'ask')
    .addEdge('ask', END)
    .compile({ checkpointer });
}

const texts = (messages: BaseMessage[]) => messages.map((m) => `${m._getType()}:${String(m.content)}`);

async function collect(it: AsyncGenerator<CheckpointTuple>): Promise<CheckpointTuple[]> {
  const out: CheckpointTuple[] = [];
  for await (const t of it) out.push(t);
  return out;
}

describe('SqliteCheckpointSaver with a compiled StateGraph', () => {
  it('keeps a thread across invocations and across closing and reopening the file', async () => {
    const store = open();
    const graph = chatGraph(store.checkpointer('agent'));
    await graph.invoke({ messages: [new HumanMessage('hi')] }, cfg('t1'));
    const second = await graph.invoke({ messages: [new HumanMessage('again')] }, cfg('t1'));
    expect(texts(second.messages)).toEqual(['human:hi', 'ai:reply 1', 'human:again', 'ai:reply 3']);
    // A different thread starts empty.
    const other = await graph.invoke({ messages: [new HumanMessage('x')] }, cfg('t2'));
    expect(texts(other.messages)).toEqual(['human:x', 'ai:reply 1']);
    await store.close();

    const reopened = open();
    const graph2 = chatGraph(reopened.checkpointer('agent'));
    expect(texts((await graph2.getState(cfg('t1'))).values.messages)).toEqual(['human:hi', 'ai:reply 1', 'human:again', 'ai:reply 3']);
    const third = await graph2.invoke({ messages: [new HumanMessage('third')] }, cfg('t1'));
    expect(third.messages).toHaveLength(6);
    expect(texts(third.messages).at(-1)).toBe('ai:reply 5');
  });

  it('stores channel values once per version, not once per checkpoint', async () => {
    const store = open();
    const graph = chatGraph(store.checkpointer('agent'));
    for (let i = 0; i < 3; i++) await graph.invoke({ messages: [new HumanMessage(`m${i}`)] }, cfg('t'));
    const db = new Database(temp.file, { readonly: true });
    try {
      const checkpoints = db.prepare('SELECT count(*) FROM checkpoints').pluck().get() as number;
      const messageBlobs = db.prepare("SELECT count(*) FROM checkpoint_blobs WHERE channel = 'messages'").pluck().get() as number;
      // Each invocation writes an input, a loop (after __start__) and a final checkpoint; the
      // messages channel changes in only two of them.
      expect(checkpoints).toBe(9);
      expect(messageBlobs).toBe(6);
      // No checkpoint row carries channel values.
      const saver = store.checkpointer('agent');
      const latest = await saver.getTuple(cfg('t'));
      expect((latest!.checkpoint.channel_values as { messages: BaseMessage[] }).messages).toHaveLength(6);
    } finally {
      db.close();
    }
  });

  it('interrupt() and Command({ resume }) work through stored pending writes, even after a reopen', async () => {
    const store = open();
    const graph = approvalGraph(store.checkpointer('agent'));
    const first = await graph.invoke({ messages: [new HumanMessage('do it')] }, cfg('t'));
    expect((first as Record<string, unknown>).__interrupt__).toBeDefined();
    const state = await graph.getState(cfg('t'));
    expect(state.next).toEqual(['ask']);
    expect(state.tasks[0].interrupts[0].value).toEqual({ question: 'approve?' });
    const tuple = await store.checkpointer('agent').getTuple(cfg('t'));
    expect(tuple!.pendingWrites!.some(([, channel]) => channel === INTERRUPT)).toBe(true);
    await store.close();

    const reopened = open();
    const graph2 = approvalGraph(reopened.checkpointer('agent'));
    const resumed = await graph2.invoke(new Command({ resume: 'yes' }), cfg('t'));
    expect(texts(resumed.messages)).toEqual(['human:do it', 'ai:answer: yes']);
    expect((await graph2.getState(cfg('t'))).next).toEqual([]);
  });

  it('stores subgraph checkpoints under their checkpoint_ns and resumes an interrupt inside a subgraph', async () => {
    const store = open();
    const saver = store.checkpointer('agent');
    const parent = new StateGraph(MessagesAnnotation)
      .addNode('child', approvalGraph())
      .addEdge(START, 'child')
      .addEdge('child', END)
      .compile({ checkpointer: saver });
    await parent.invoke({ messages: [new HumanMessage('go')] }, cfg('t'));
    const db = new Database(temp.file, { readonly: true });
    try {
      const namespaces = db.prepare('SELECT DISTINCT checkpoint_ns FROM checkpoints ORDER BY 1').pluck().all() as string[];
      expect(namespaces[0]).toBe('');
      expect(namespaces.slice(1).some((ns) => ns.startsWith('child:'))).toBe(true);
    } finally {
      db.close();
    }
    const resumed = await parent.invoke(new Command({ resume: 'ok' }), cfg('t'));
    expect(texts(resumed.messages)).toEqual(['human:go', 'ai:answer: ok']);
  });

  it('forks from an older checkpoint without reading the abandoned branch', async () => {
    const store = open();
    const graph = chatGraph(store.checkpointer('agent'));
    await graph.invoke({ messages: [new HumanMessage('one')] }, cfg('t'));
    await graph.invoke({ messages: [new HumanMessage('two')] }, cfg('t'));
    const history: Array<{ values: { messages: BaseMessage[] }; config: { configurable?: Record<string, unknown> } }> = [];
    for await (const s of graph.getStateHistory(cfg('t'))) history.push(s as (typeof history)[number]);
    const afterFirst = history.find((s) => s.values.messages?.length === 2)!;
    // updateState on the older checkpoint produces channel versions that the abandoned branch
    // also reached; the blobs must not be confused.
    await graph.updateState(afterFirst.config, { messages: [new AIMessage('forked')] });
    expect(texts((await graph.getState(cfg('t'))).values.messages)).toEqual(['human:one', 'ai:reply 1', 'ai:forked']);
    const next = await graph.invoke({ messages: [new HumanMessage('three')] }, cfg('t'));
    expect(texts(next.messages)).toEqual(['human:one', 'ai:reply 1', 'ai:forked', 'human:three', 'ai:reply 4']);
  });
});

/** A checkpoint whose single channel `counter` holds `value`. */
function counterCheckpoint(value: number, version: number): Checkpoint {
  const c = emptyCheckpoint();
  c.id = uuid6(-1);
  c.channel_values = { counter: value };
  c.channel_versions = { counter: version };
  return c;
}

describe('SqliteCheckpointSaver, direct API', () => {
  it('returns the latest checkpoint of a 2,000-checkpoint thread through the primary-key index', async () => {
    const store = open();
    const saver = store.checkpointer('agent');
    let config = { configurable: { thread_id: 'long', checkpoint_ns: '' } } as { configurable: Record<string, unknown> };
    let lastId = '';
    for (let i = 1; i <= 2000; i++) {
      const c = counterCheckpoint(i, i);
      lastId = c.id;
      config = (await saver.put(config, c, { source: 'loop', step: i, parents: {} }, { counter: i })) as typeof config;
    }
    const latest = await saver.getTuple(cfg('long'));
    expect(latest!.checkpoint.id).toBe(lastId);
    expect(latest!.checkpoint.channel_values).toEqual({ counter: 2000 });
    expect(latest!.metadata!.step).toBe(2000);
    expect(latest!.parentConfig!.configurable!.checkpoint_id).toBeTypeOf('string');
    const parent = await saver.getTuple(latest!.parentConfig!);
    expect(parent!.checkpoint.channel_values).toEqual({ counter: 1999 });

    // The plan proves the cost: a backwards search of the primary-key index, no sort step.
    const db = new Database(temp.file, { readonly: true });
    try {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${LATEST_CHECKPOINT_SQL}`).all('long', '') as Array<{ detail: string }>).map((r) => r.detail).join('\n');
      expect(plan).toMatch(/SEARCH c USING INDEX sqlite_autoindex_checkpoints_1 \(thread_id=\? AND checkpoint_ns=\?\)/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    } finally {
      db.close();
    }
  });

  it('keeps namespaces apart and links parents', async () => {
    const store = open();
    const saver = store.checkpointer('agent');
    const root = counterCheckpoint(1, 1);
    const rootCfg = await saver.put({ configurable: { thread_id: 't', checkpoint_ns: '' } }, root, { source: 'input', step: -1, parents: {} }, { counter: 1 });
    const sub = counterCheckpoint(50, 1);
    await saver.put({ configurable: { thread_id: 't', checkpoint_ns: 'child:1' } }, sub, { source: 'loop', step: 0, parents: { '': root.id } }, { counter: 1 });
    const rootNext = counterCheckpoint(2, 2);
    await saver.put(rootCfg, rootNext, { source: 'loop', step: 0, parents: {} }, { counter: 2 });

    const main = await saver.getTuple(cfg('t'));
    expect(main!.checkpoint.id).toBe(rootNext.id);
    expect(main!.checkpoint.channel_values).toEqual({ counter: 2 });
    expect(main!.parentConfig!.configurable!.checkpoint_id).toBe(root.id);
    const child = await saver.getTuple({ configurable: { thread_id: 't', checkpoint_ns: 'child:1' } });
    expect(child!.checkpoint.id).toBe(sub.id);
    expect(child!.checkpoint.channel_values).toEqual({ counter: 50 });
    expect(child!.parentConfig).toBeUndefined();
    expect(child!.metadata!.parents).toEqual({ '': root.id });
    const byId = await saver.getTuple({ configurable: { thread_id: 't', checkpoint_ns: '', checkpoint_id: root.id } });
    expect(byId!.checkpoint.channel_values).toEqual({ counter: 1 });
    expect(await saver.getTuple({ configurable: { thread_id: 't', checkpoint_ns: '', checkpoint_id: 'nope' } })).toBeUndefined();
    expect(await saver.getTuple(cfg('unknown'))).toBeUndefined();
  });

  it('re-assembles unchanged channels from older blobs and omits emptied channels', async () => {
    const store = open();
    const saver = store.checkpointer('agent');
    const a = emptyCheckpoint();
    a.channel_values = { keep: 'k1', temp: 't1' };
    a.channel_versions = { keep: 1, temp: 1 };
    const aCfg = await saver.put(cfg('t'), a, { source: 'input', step: -1, parents: {} }, { keep: 1, temp: 1 });
    const b = emptyCheckpoint();
    b.id = uuid6(-1);
    b.channel_values = { keep: 'k1' }; // temp was cleared: new version, no value
    b.channel_versions = { keep: 1, temp: 2 };
    await saver.put(aCfg, b, { source: 'loop', step: 0, parents: {} }, { temp: 2 });
    expect((await saver.getTuple(cfg('t')))!.checkpoint.channel_values).toEqual({ keep: 'k1' });
    expect((await saver.getTuple({ configurable: { ...aCfg.configurable } }))!.checkpoint.channel_values).toEqual({ keep: 'k1', temp: 't1' });
  });

  it('putWrites keeps the first regular write of a task and replaces special writes', async () => {
    const store = open();
    const saver = store.checkpointer('agent');
    const c = counterCheckpoint(1, 1);
    const config = await saver.put(cfg('t'), c, { source: 'loop', step: 0, parents: {} }, { counter: 1 });
    await saver.putWrites(
      config,
      [
        ['counter', 10],
        ['other', 'x'],
      ],
      'task-a',
    );
    await saver.putWrites(config, [['counter', 99]], 'task-a'); // a retry must not overwrite
    await saver.putWrites(config, [[INTERRUPT, 'first']], 'task-b');
    await saver.putWrites(config, [[INTERRUPT, 'second']], 'task-b'); // special: replaced
    const tuple = await saver.getTuple(cfg('t'));
    expect(tuple!.pendingWrites).toEqual([
      ['task-a', 'counter', 10],
      ['task-a', 'other', 'x'],
      ['task-b', INTERRUPT, 'second'],
    ]);
    await expect(saver.putWrites(cfg('t'), [['x', 1]], 'task')).rejects.toThrow(/checkpoint_id/);
  });

  it('list() honours before, limit, filter, checkpoint_ns and lists all own threads without a thread_id', async () => {
    const store = open();
    const saver = store.checkpointer('agent');
    const ids: string[] = [];
    let config = { configurable: { thread_id: 't', checkpoint_ns: '' } } as { configurable: Record<string, unknown> };
    for (let i = 0; i < 5; i++) {
      const c = counterCheckpoint(i, i + 1);
      ids.push(c.id);
      config = (await saver.put(config, c, { source: i === 0 ? 'input' : 'loop', step: i - 1, parents: {}, tag: i % 2 === 0 ? 'even' : 'odd' } as never, {
        counter: i + 1,
      })) as typeof config;
    }
    await saver.put(
      { configurable: { thread_id: 't', checkpoint_ns: 'sub:1' } },
      counterCheckpoint(7, 1),
      { source: 'loop', step: 0, parents: {} },
      { counter: 1 },
    );
    await saver.put(cfg('u'), counterCheckpoint(8, 1), { source: 'input', step: -1, parents: {} }, { counter: 1 });

    const main = await collect(saver.list({ configurable: { thread_id: 't', checkpoint_ns: '' } }));
    expect(main.map((t) => t.checkpoint.id)).toEqual([...ids].reverse());
    expect(main[0].checkpoint.channel_values).toEqual({ counter: 4 });
    expect(await collect(saver.list({ configurable: { thread_id: 't' } }))).toHaveLength(6);

    const limited = await collect(saver.list({ configurable: { thread_id: 't', checkpoint_ns: '' } }, { limit: 2 }));
    expect(limited.map((t) => t.checkpoint.id)).toEqual([ids[4], ids[3]]);
    const before = await collect(saver.list({ configurable: { thread_id: 't', checkpoint_ns: '' } }, { before: { configurable: { checkpoint_id: ids[2] } } }));
    expect(before.map((t) => t.checkpoint.id)).toEqual([ids[1], ids[0]]);
    const even = await collect(saver.list({ configurable: { thread_id: 't' } }, { filter: { tag: 'even' } }));
    expect(even.map((t) => t.checkpoint.id)).toEqual([ids[4], ids[2], ids[0]]);
    const inputStep = await collect(saver.list({ configurable: { thread_id: 't' } }, { filter: { source: 'input', step: -1 } }));
    expect(inputStep.map((t) => t.checkpoint.id)).toEqual([ids[0]]);
    expect(await collect(saver.list({ configurable: { thread_id: 't' } }, { filter: { parents: {} }, limit: 1 }))).toHaveLength(1);
    expect(await collect(saver.list({ configurable: { thread_id: 't' } }, { filter: { tag: 'none' } }))).toEqual([]);
    expect(await collect(saver.list({ configurable: { thread_id: 't' } }, { limit: 0 }))).toEqual([]);

    const all = await collect(saver.list({ configurable: {} }));
    expect(new Set(all.map((t) => t.config.configurable!.thread_id))).toEqual(new Set(['t', 'u']));
    expect(all).toHaveLength(7);
  });

  it("deleteThread removes only that thread; another agent's thread is refused", async () => {
    const store = open();
    const a = store.checkpointer('a');
    const graph = chatGraph(a);
    await graph.invoke({ messages: [new HumanMessage('hi')] }, cfg('t1'));
    await graph.invoke({ messages: [new HumanMessage('hi')] }, cfg('t2'));
    await a.deleteThread('t1');
    expect(await a.getTuple(cfg('t1'))).toBeUndefined();
    expect(await store.threadOwner('t1')).toBeNull();
    expect(await a.getTuple(cfg('t2'))).toBeDefined();
    await expect(store.checkpointer('b').deleteThread('t2')).rejects.toMatchObject({ name: 'ThreadOwnershipError' });
    await store.checkpointer('b').deleteThread('never-existed');
    expect(await a.getTuple(cfg('t2'))).toBeDefined();
  });

  it('hands out channel versions that increase and do not repeat', () => {
    const saver = open().checkpointer('agent');
    const v1 = saver.getNextVersion(undefined);
    const v2 = saver.getNextVersion(v1);
    expect(v1).toBeGreaterThanOrEqual(1);
    expect(v2).toBeGreaterThan(v1);
    expect(Math.floor(v2)).toBe(Math.floor(v1) + 1);
    expect(saver.getNextVersion(v1)).not.toBe(v2);
  });
});

// Not only messages: a plain reducer channel round-trips too, under the empty AGENT_ID.
describe('SqliteCheckpointSaver with a custom state', () => {
  it('persists plain channels', async () => {
    const State = Annotation.Root({ count: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }) });
    const store = open();
    const graph = new StateGraph(State)
      .addNode('inc', () => ({ count: 1 }))
      .addEdge(START, 'inc')
      .addEdge('inc', END)
      .compile({ checkpointer: store.checkpointer('') });
    await graph.invoke({ count: 10 }, cfg('c'));
    const out = await graph.invoke({ count: 100 }, cfg('c'));
    expect(out.count).toBe(112);
    expect(await store.threadOwner('c')).toBe(''); // AGENT_ID unset still owns its threads
  });
});
