// The model path against a local server speaking the OpenAI chat-completions protocol:
// streamed chunks, 401/403, 429, an answer that never comes, a connection dropped
// mid-stream, cache statistics and history seeding.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.ts';
import { sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';

function statusData(t: Task): Record<string, any> {
  return (t.status.message?.parts.find((p) => p.kind === 'data') as any)?.data;
}

describe('OpenAI-compatible model path', () => {
  let fake: FakeOpenAi;
  let rt: TestRuntime;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    rt = await startTestRuntime({
      env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'fake-model', MODEL_TIMEOUT_SECONDS: '1', MODEL_MAX_RETRIES: '0' },
    });
  });
  afterAll(async () => {
    await rt?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.mode = 'ok';
    fake.cachedTokens = 0;
    fake.requests.length = 0;
  });

  it('streams the real model chunks through message/stream', async () => {
    const events: any[] = [];
    for await (const ev of rt.client.sendMessageStream(sendParams('How do I reset my password?'))) events.push(ev);
    const chunks = events.filter((e) => e.kind === 'artifact-update' && !e.lastChunk).map((e) => e.artifact.parts[0].text);
    expect(chunks.join('')).toBe('Hello from the model.');
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(events.at(-1).status.state).toBe('completed');
    expect(fake.requests[0].model).toBe('fake-model');
    expect(fake.requests[0].messages[0].role).toBe('system');
  });

  it('maps 401 and 403 to AUTH_REQUIRED', async () => {
    for (const mode of ['401', '403'] as const) {
      fake.mode = mode;
      const t = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as any;
      expect(t.result.status.state).toBe('failed');
      expect(statusData(t.result)).toMatchObject({ errorCode: 'AUTH_REQUIRED', retriable: false });
    }
  });

  it('maps 429 to RATE_LIMITED (retriable)', async () => {
    fake.mode = '429';
    const t = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as any;
    expect(statusData(t.result)).toMatchObject({ errorCode: 'RATE_LIMITED', errorReason: 'upstream_rate_limited', retriable: true });
  });

  it('maps an answer that never comes to UPSTREAM_TIMEOUT within seconds', async () => {
    fake.mode = 'hang';
    const t0 = Date.now();
    const t = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as any;
    expect(statusData(t.result)).toMatchObject({ errorCode: 'UPSTREAM_TIMEOUT', retriable: true });
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('ends a stream dropped mid-way failed UPSTREAM_UNAVAILABLE, discarding the partial buffer', async () => {
    fake.mode = 'drop';
    const events: any[] = [];
    for await (const ev of rt.client.sendMessageStream(sendParams('How do I reset my password?'))) events.push(ev);
    const last = events.at(-1);
    expect(last.kind).toBe('status-update');
    expect(last.status.state).toBe('failed');
    expect(statusData(last)).toMatchObject({ errorCode: 'UPSTREAM_UNAVAILABLE', retriable: true });
    const replace = events.find((e) => e.kind === 'artifact-update' && e.lastChunk);
    expect(replace.append).toBe(false);
    expect(replace.artifact.parts.every((p: any) => p.kind === 'data')).toBe(true);
    // not re-run as a single invocation
    expect(fake.requests.length).toBe(1);
  });

  it('reports cache_stats in invoke.end when the model reports cached tokens, streamed or not', async () => {
    fake.cachedTokens = 64;
    // message/send: one plain completion; the usage comes from the server, not an estimate.
    const t = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as any;
    expect(t.result.status.state).toBe('completed');
    expect(fake.requests.map((r) => r.stream)).toEqual([false]);
    const end = rt.traces.find((e) => e.name === 'invoke.end' && e.task_id === t.result.id)!;
    expect(end.cache_stats).toMatchObject({ cache_read_tokens: 64, input_tokens: 100 });
    // message/stream: the same model streams token by token and still reports its usage.
    const events: any[] = [];
    for await (const ev of rt.client.sendMessageStream(sendParams('How do I reset my password?'))) events.push(ev);
    expect(fake.requests.map((r) => r.stream)).toEqual([false, true]);
    const streamed = rt.traces.find((e) => e.name === 'invoke.end' && e.task_id === events[0].id)!;
    expect(streamed.cache_stats).toMatchObject({ cache_read_tokens: 64, input_tokens: 100 });
  });

  it('seeds a cold thread from metadata.history (user/agent text only, malformed skipped), never a warm one', async () => {
    const history = [
      { role: 'user', parts: [{ kind: 'text', text: 'seed question one' }] },
      { role: 'agent', parts: [{ kind: 'text', text: 'seed answer one' }] },
      { role: 'system', parts: [{ kind: 'text', text: 'not allowed role' }] },
      { role: 'user', parts: [{ kind: 'data', data: { x: 1 } }] },
      'garbage',
      { role: 'user' },
    ];
    const first = (await rt.client.sendMessage(sendParams('hello', {}, { metadata: { history } }))) as any;
    const sent = fake.requests[0].messages.map((m) => `${m.role}:${m.content}`);
    expect(sent).toEqual(['system:' + fake.requests[0].messages[0].content, 'user:seed question one', 'assistant:seed answer one', 'user:hello']);
    fake.requests.length = 0;
    await rt.client.sendMessage(
      sendParams('again', { contextId: first.result.contextId, metadata: { history: [{ role: 'user', parts: [{ kind: 'text', text: 'late seed' }] }] } }),
    );
    const again = fake.requests[0].messages.map((m) => m.content);
    expect(again).not.toContain('late seed');
    expect(again).toContain('seed question one');
  });

  it('keeps only the most recent A2A_HISTORY_MAX_MESSAGES of a seed', async () => {
    const small = await startTestRuntime({
      env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'k', OPENAI_MODEL: 'fake-model', A2A_HISTORY_MAX_MESSAGES: '3', MODEL_MAX_RETRIES: '0' },
    });
    try {
      const history = Array.from({ length: 10 }, (_, i) => ({ role: i % 2 ? 'agent' : 'user', parts: [{ kind: 'text', text: `h${i}` }] }));
      await small.client.sendMessage(sendParams('now', {}, { metadata: { history } }));
      const contents = fake.requests[0].messages.slice(1).map((m) => m.content);
      expect(contents).toEqual(['h7', 'h8', 'h9', 'now']);
    } finally {
      await small.close();
    }
  });
});
