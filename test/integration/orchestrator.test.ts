// Calling other agents (docs/project-format.md): the orchestrator example delegates to
// support-desk over A2A with callAgent, through the outbound pool, one span per call; a
// child's failure passes through with its code; a child that is down fails the run
// UPSTREAM_UNAVAILABLE, as examples/orchestrator/README.md says.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { EXAMPLE, REPO, sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';

const ORCHESTRATOR = path.join(REPO, 'examples/orchestrator');

const failure = (task: Task) => (task.status.message?.parts.find((p) => p.kind === 'data') as { data: Record<string, unknown> } | undefined)?.data;

describe('the orchestrator example calls support-desk', () => {
  let desk: TestRuntime;
  let orchestrator: TestRuntime;
  beforeAll(async () => {
    desk = await startTestRuntime({ projectDir: EXAMPLE, env: { AGENT_ID: 'support-desk' } });
    orchestrator = await startTestRuntime({
      projectDir: ORCHESTRATOR,
      env: { AGENT_ID: 'orchestrator', SUPPORT_DESK_URL: desk.url, OUTBOUND_MAX_CONNECTIONS: '4' },
    });
  });
  afterAll(async () => {
    await orchestrator?.close();
    await desk?.close();
  });

  it('asks one question per call, in parallel, through the pool, each call a span', async () => {
    const res = (await orchestrator.client.sendMessage(sendParams('Where is my order ORD-23456? How do I reset my password?'))) as { result: Task };
    const task = res.result;
    expect(task.status.state).toBe('completed');
    const data = task.artifacts?.[0].parts.find((p) => p.kind === 'data') as unknown as { data: { replies: { question: string; answer: string }[] } };
    expect(data.data.replies.map((r) => r.question)).toEqual(['Where is my order ORD-23456?', 'How do I reset my password?']);
    expect(data.data.replies[0].answer).toContain('ORD-23456');
    expect(data.data.replies[1].answer.toLowerCase()).toContain('password');
    const spans = orchestrator.traces.filter((e) => e.name === 'span.start' && e.task_id === task.id).map((e) => e.node);
    expect(spans).toEqual(expect.arrayContaining(['delegate[q1]', 'delegate[q2]', 'delegate[agent:support-desk]']));
    expect(spans.filter((n) => n === 'delegate[agent:support-desk]')).toHaveLength(2);
    const status = ((await (await fetch(`${orchestrator.url}api/v1/status`)).json()) as { data: { outbound: { requests: number; limit: number } } }).data
      .outbound;
    expect(status.limit).toBe(4);
    expect(status.requests).toBeGreaterThanOrEqual(4); // two cards and two messages at least
    // Each question went to its own child conversation on support-desk.
    const childContexts = new Set(desk.traces.filter((e) => e.name === 'invoke.start').map((e) => e.context_id));
    expect(childContexts.size).toBe(2);
  });

  it("passes a child's failure through with its code, reason and message", async () => {
    const res = (await orchestrator.client.sendMessage(sendParams('Where is my order ORD-11111?'))) as { result: Task };
    expect(res.result.status.state).toBe('failed');
    const desks = desk.traces.filter((e) => e.name === 'invoke.end' && e.state === 'failed').at(-1)!;
    expect(failure(res.result)).toMatchObject({ errorCode: desks.errorCode, errorReason: desks.errorReason });
  });

  it('fails UPSTREAM_UNAVAILABLE, naming the agent it could not reach, when support-desk is down', async () => {
    const down = await startTestRuntime({ projectDir: ORCHESTRATOR, env: { AGENT_ID: 'orchestrator', SUPPORT_DESK_URL: 'http://127.0.0.1:1/' } });
    try {
      const res = (await down.client.sendMessage(sendParams('Where is my order ORD-23456?'))) as { result: Task };
      expect(res.result.status.state).toBe('failed');
      expect(failure(res.result)).toMatchObject({ errorCode: 'UPSTREAM_UNAVAILABLE', errorReason: 'child_agent_unreachable', retriable: true });
      expect(String(failure(res.result)?.errorMessage)).toContain('http://127.0.0.1:1/');
    } finally {
      await down.close();
    }
  });
});
