// A local server that speaks the OpenAI chat-completions protocol (streaming SSE), so the
// model path is tested against a real HTTP peer. Its behaviour is switched per test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMode = 'ok' | '401' | '403' | '429' | 'hang' | 'drop';

export interface FakeOpenAi {
  url: string;
  mode: FakeMode;
  /** The chunks answered in 'ok' mode. */
  chunks: string[];
  /** Cached prompt tokens reported in usage (0 = no cache details). */
  cachedTokens: number;
  requests: { model: string; stream: boolean; messages: { role: string; content: string }[] }[];
  /** When set, a non-streaming request (a judge's) is answered only once `until` settles; `held`
   * hears it arrive, `answered` hears its answer written. */
  hold: { until: Promise<void>; held?: () => void; answered?: () => void } | null;
  close(): Promise<void>;
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const sockets = new Set<import('node:net').Socket>();
  const state: Omit<FakeOpenAi, 'url' | 'close'> = { mode: 'ok', chunks: ['Hello', ' from', ' the', ' model.'], cachedTokens: 0, requests: [], hold: null };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const parsed = JSON.parse(body);
      state.requests.push({ model: parsed.model, stream: parsed.stream === true, messages: parsed.messages });
      const error = (status: number, type: string) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `${type} (fake)`, type, code: type } }));
      switch (state.mode) {
        case '401':
          return error(401, 'invalid_api_key');
        case '403':
          return error(403, 'permission_denied');
        case '429':
          return error(429, 'rate_limit_exceeded');
        case 'hang':
          return; // never answers
      }
      const answerWhole = (): void => {
        const content = state.chunks.join('');
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'chatcmpl-fake',
            object: 'chat.completion',
            created: 0,
            model: parsed.model,
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: {
              prompt_tokens: 100,
              completion_tokens: state.chunks.length,
              total_tokens: 100 + state.chunks.length,
              ...(state.cachedTokens ? { prompt_tokens_details: { cached_tokens: state.cachedTokens } } : {}),
            },
          }),
        );
      };
      if (!parsed.stream && state.hold) {
        const { until, held, answered } = state.hold;
        held?.();
        void until.then(() => {
          answerWhole();
          answered?.();
        });
        return;
      }
      if (!parsed.stream) return answerWhole();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const frame = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model: parsed.model, choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
      res.write(frame({ role: 'assistant', content: '' }));
      const chunks = state.chunks;
      if (state.mode === 'drop') {
        res.write(frame({ content: chunks[0] }));
        setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      for (const c of chunks) res.write(frame({ content: c }));
      res.write(frame({}, 'stop'));
      res.write(
        frame({}, null, {
          prompt_tokens: 100,
          completion_tokens: chunks.length,
          total_tokens: 100 + chunks.length,
          ...(state.cachedTokens ? { prompt_tokens_details: { cached_tokens: state.cachedTokens } } : {}),
        }),
      );
      res.end('data: [DONE]\n\n');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const fake = state as FakeOpenAi;
  fake.url = `http://127.0.0.1:${port}/v1`;
  fake.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return fake;
}
