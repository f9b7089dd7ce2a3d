// The comparison peer of bench/cost.bench.ts: what a user would hand-wire instead
// of the runtime, on the same stock libraries. An @a2a-js/sdk server (DefaultRequestHandler,
// in-memory task store) that invokes the same example graph, compiled with LangGraph's own
// SQLite checkpointer (@langchain/langgraph-checkpoint-sqlite: WAL, synchronous=NORMAL),
// `durability: "exit"`, thread = contextId, and answers with the graph's text and DataPart.
// No transcript, ownership, evaluators, traces, contracts or durable tasks.
// On PostgreSQL instead: LangGraph's own PostgresSaver (@langchain/langgraph-checkpoint-postgres,
// its tables in SCHEMA, created by its setup()), durability `exit` or `async`.
// Usage: node bin/run-ts.mjs bench/peer-server.ts DATA_DIR
//        node bin/run-ts.mjs bench/peer-server.ts --postgres DSN SCHEMA [exit|async]
import path from 'node:path';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { HumanMessage } from '@langchain/core/messages';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { serveBaseline } from './baseline-server.ts';
import type { Part } from '@a2a-js/sdk';
import { REPO, benchCard } from './load.ts';
import { exampleGraph } from './example.ts';

async function saverOf(args: string[]): Promise<{ saver: SqliteSaver | PostgresSaver; durability: 'exit' | 'async'; label: string }> {
  if (args[0] === '--postgres') {
    const [, dsn, schema, durability = 'exit'] = args;
    // A pool as the saver's own fromConnString makes (node-postgres defaults: 10 connections).
    const saver = new PostgresSaver(new pg.Pool({ connectionString: dsn }), undefined, { schema });
    await saver.setup();
    return { saver, durability: durability === 'async' ? 'async' : 'exit', label: `PostgresSaver, durability ${durability}` };
  }
  const dataDir = args[0] ?? fs.mkdtempSync(path.join(REPO, '.peer-'));
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, 'peer.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return { saver: new SqliteSaver(db), durability: 'exit', label: 'SqliteSaver' };
}
const { saver, durability, label } = await saverOf(process.argv.slice(2));

// The same graph the runtime runs (the example's factory, given the same context).
const graph = await exampleGraph(saver);
const card = benchCard('support-desk (hand-wired)', `the example graph on stock libraries (${label})`);

const executor: AgentExecutor = {
  async execute(ctx, bus) {
    const text = ctx.userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    bus.publish({ kind: 'task', id: ctx.taskId, contextId: ctx.contextId, status: { state: 'working' }, history: [ctx.userMessage] });
    const request = { text, data: [], files: [], metadata: {}, contextId: ctx.contextId, taskId: ctx.taskId };
    // The compiled graph, called as a user would: invoke with the thread and the durability.
    const compiled = graph as unknown as { invoke(input: unknown, config: unknown): Promise<{ response?: { text?: string; data?: Record<string, unknown> } }> };
    const state = await compiled.invoke(
      { messages: [new HumanMessage(text)], request, response: null },
      { configurable: { thread_id: ctx.contextId }, durability },
    );
    const parts: Part[] = [{ kind: 'text', text: state.response?.text ?? '' }];
    if (state.response?.data) parts.push({ kind: 'data', data: { schema: 'support.answer/1', ...state.response.data } });
    bus.publish({ kind: 'artifact-update', taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: 'response', name: 'agent-response', parts } });
    bus.publish({ kind: 'status-update', taskId: ctx.taskId, contextId: ctx.contextId, status: { state: 'completed' }, final: true });
    bus.finished();
  },
  async cancelTask() {},
};

serveBaseline('peer', card, executor);
