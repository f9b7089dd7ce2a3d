// The baseline for bench/runtime.bench.ts: a bare @a2a-js/sdk server whose executor echoes
// the text back as a completed task, with the SDK's in-memory task store.
import { randomUUID } from 'node:crypto';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { serveBaseline } from './baseline-server.ts';
import { benchCard } from './load.ts';

const card = benchCard('echo', 'echo baseline');

const executor: AgentExecutor = {
  async execute(ctx, bus) {
    const text = ctx.userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    bus.publish({ kind: 'task', id: ctx.taskId, contextId: ctx.contextId, status: { state: 'working' }, history: [ctx.userMessage] });
    bus.publish({
      kind: 'artifact-update',
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      artifact: { artifactId: randomUUID(), parts: [{ kind: 'text', text }] },
    });
    bus.publish({ kind: 'status-update', taskId: ctx.taskId, contextId: ctx.contextId, status: { state: 'completed' }, final: true });
    bus.finished();
  },
  async cancelTask() {},
};

serveBaseline('echo', card, executor);
