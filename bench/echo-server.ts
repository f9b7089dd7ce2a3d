// The baseline for bench/runtime.bench.ts: a bare @a2a-js/sdk server whose executor echoes
// the text back as a completed task, with the SDK's in-memory task store.
import express from 'express';
import { randomUUID } from 'node:crypto';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { benchCard } from './load.ts';

const card = benchCard('echo', 'echo baseline');

const executor: AgentExecutor = {
  async execute(ctx, bus) {
    const text = ctx.userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    bus.publish({ kind: 'task', id: ctx.taskId, contextId: ctx.contextId, status: { state: 'working' }, history: [ctx.userMessage] });
    bus.publish({ kind: 'artifact-update', taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: randomUUID(), parts: [{ kind: 'text', text }] } });
    bus.publish({ kind: 'status-update', taskId: ctx.taskId, contextId: ctx.contextId, status: { state: 'completed' }, final: true });
    bus.finished();
  },
  async cancelTask() {},
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  process.stdout.write(`echo server ready at http://127.0.0.1:${addr.port}/\n`);
});
