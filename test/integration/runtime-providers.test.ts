// Anthropic and Gemini through LangChain's packages (docs/project-format.md, "The model"),
// each against a local server speaking the provider's real HTTP protocol: a run with a tool
// call completes, streamed token by token, with each call's usage (cached tokens included)
// recorded; each failure maps to its spec 7.2 code; the key never reaches the trace.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Task } from '@a2a-js/sdk';
import { REPO, sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { ANSWER, startFakeAnthropic, startFakeGemini, type FakeProvider } from './helpers/fake-providers.ts';

const FIXTURE = path.join(REPO, 'test/fixtures/tool-agent');
const KEY = 'sk-provider-secret-123';

const statusData = (t: Task): Record<string, any> => (t.status.message?.parts.find((p) => p.kind === 'data') as any)?.data;

const providers = [
  {
    name: 'anthropic',
    start: startFakeAnthropic,
    env: (url: string) => ({ MODEL_PROVIDER: 'anthropic', ANTHROPIC_API_KEY: KEY, ANTHROPIC_MODEL: 'claude-test', ANTHROPIC_BASE_URL: url }),
    provider: 'anthropic',
    usage: { input_tokens: 227, output_tokens: 12, cache_read_tokens: 100, cache_creation_tokens: 7 },
    keyHeader: 'x-api-key',
  },
  {
    name: 'gemini',
    start: startFakeGemini,
    env: (url: string) => ({ MODEL_PROVIDER: 'gemini', GOOGLE_API_KEY: KEY, GEMINI_MODEL: 'gemini-test', GEMINI_BASE_URL: url }),
    provider: 'gcp.gemini',
    usage: { input_tokens: 90, output_tokens: 11, cache_read_tokens: 64, cache_creation_tokens: 0 },
    keyHeader: 'x-goog-api-key',
  },
];

for (const p of providers) {
  describe(`${p.name} model path`, () => {
    let fake: FakeProvider;
    let rt: TestRuntime;
    beforeAll(async () => {
      fake = await p.start();
      // Recording on: each model call carries its provider request, the key redacted.
      rt = await startTestRuntime({ projectDir: FIXTURE, env: { ...p.env(fake.url), MODEL_TIMEOUT_SECONDS: '1', MODEL_MAX_RETRIES: '0', RECORD_CALLS: 'on' } });
    });
    afterAll(async () => {
      await rt?.close();
      await fake?.close();
    });
    beforeEach(() => {
      fake.mode = 'ok';
      fake.requests.length = 0;
      rt.traces.length = 0;
    });

    it('streams a run with a tool call and records each call’s usage', async () => {
      const events: any[] = [];
      for await (const ev of rt.client.sendMessageStream(sendParams('Where is order ORD-1?'))) events.push(ev);
      expect(events.at(-1).status.state).toBe('completed');
      const chunks = events.filter((e) => e.kind === 'artifact-update' && !e.lastChunk).map((e) => e.artifact.parts[0].text);
      expect(chunks.join('')).toBe(ANSWER);
      expect(chunks.length).toBeGreaterThanOrEqual(3);
      // Two model requests: the tool call, then the answer with the tool's result.
      expect(fake.requests).toHaveLength(2);
      expect(fake.requests[0].headers[p.keyHeader]).toBe(KEY);
      expect(JSON.stringify(fake.requests[1].body)).toContain('shipped');
      const calls = rt.traces.filter((e) => e.name === 'model.call');
      expect(calls).toHaveLength(2);
      // (Streamed, LangChain adds message_start's placeholder output count to the final one.)
      const { output_tokens, ...usage } = p.usage;
      for (const c of calls) expect(c).toMatchObject({ provider: p.provider, status: 'completed', node: 'agent', usage });
      for (const c of calls) expect((c.usage as typeof p.usage).output_tokens).toBeGreaterThanOrEqual(output_tokens);
      expect(calls[0].request_model).toMatch(/-test$/);
      // The raw request as the provider received it, whichever fetch its client uses.
      for (const c of calls) {
        const raw = c.raw_request as { method: string; url: string; headers: Record<string, string>; body: any };
        expect(raw).toMatchObject({ method: 'POST' });
        expect(raw.url.startsWith(fake.url)).toBe(true);
        expect(raw.headers[p.keyHeader]).toBe('[redacted]');
      }
      expect(JSON.stringify((calls[1].raw_request as { body: unknown }).body)).toContain('shipped');
      const end = rt.traces.find((e) => e.name === 'invoke.end')!;
      expect(end.cache_stats).toMatchObject({ cache_read_tokens: p.usage.cache_read_tokens });
      expect(JSON.stringify(rt.traces)).not.toContain(KEY);
      // Anthropic's client takes the runtime's pooled fetch (spec 8); Google's calls the global fetch.
      const outbound = ((await (await fetch(`${rt.url}api/v1/status`)).json()) as { data: { outbound: { requests: number } } }).data.outbound;
      if (p.name === 'anthropic') expect(outbound.requests).toBeGreaterThanOrEqual(2);
    });

    it('answers message/send with the model’s final text after the tool call', async () => {
      const t = ((await rt.client.sendMessage(sendParams('Where is order ORD-1?'))) as { result: Task }).result;
      expect(t.status.state).toBe('completed');
      expect(JSON.stringify(t.status.message ?? t.artifacts)).toContain('shipped');
    });

    const cases = [
      ['401', 'AUTH_REQUIRED', false],
      ['403', 'AUTH_REQUIRED', false],
      ['429', 'RATE_LIMITED', true],
      ['500', 'UPSTREAM_UNAVAILABLE', true],
      ['hang', 'UPSTREAM_TIMEOUT', true],
    ] as const;
    it.each(cases)('maps %s to %s', async (mode, code, retriable) => {
      fake.mode = mode;
      const t = ((await rt.client.sendMessage(sendParams('Where is order ORD-1?'))) as { result: Task }).result;
      expect(t.status.state).toBe('failed');
      expect(statusData(t)).toMatchObject({ errorCode: code, retriable });
      expect(JSON.stringify(statusData(t))).not.toContain(KEY);
      const call = rt.traces.find((e) => e.name === 'model.call');
      expect(call).toMatchObject({ status: 'failed', provider: p.provider });
    });
  });
}
