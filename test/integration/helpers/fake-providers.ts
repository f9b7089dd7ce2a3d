// Local servers speaking the real HTTP protocols of Anthropic (Messages API, with its SSE
// event sequence) and Google Gemini (generateContent, and streamGenerateContent with
// alt=sse). The "model" asks for the lookup_order tool first, then answers in text once the
// request carries the tool's result. `mode` makes it fail the way the real services do.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FailMode = 'ok' | '401' | '403' | '429' | '500' | 'hang';
export const ANSWER = 'Order ORD-1 has shipped with DHL.';

export interface FakeProvider {
  url: string;
  mode: FailMode;
  requests: { path: string; headers: http.IncomingHttpHeaders; body: any }[];
  close(): Promise<void>;
}

function serve(handle: (req: http.IncomingMessage, body: any, res: http.ServerResponse, fake: FakeProvider) => void): Promise<FakeProvider> {
  const hung = new Set<http.ServerResponse>();
  const fake: FakeProvider = { url: '', mode: 'ok', requests: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      fake.requests.push({ path: req.url ?? '', headers: req.headers, body });
      if (fake.mode === 'hang') return void hung.add(res);
      handle(req, body, res, fake);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      fake.close = () =>
        new Promise<void>((r) => {
          for (const res of hung) res.destroy();
          server.closeAllConnections();
          server.close(() => r());
        });
      resolve(fake);
    }),
  );
}

const words = (text: string) => text.match(/\S+\s*/g) ?? [text];

// --- Anthropic Messages API ---
const ANTHROPIC_ERRORS: Record<string, [number, string]> = {
  '401': [401, 'authentication_error'],
  '403': [403, 'permission_error'],
  '429': [429, 'rate_limit_error'],
  '500': [500, 'api_error'],
};

export function startFakeAnthropic(): Promise<FakeProvider> {
  return serve((req, body, res, fake) => {
    if (req.url !== '/v1/messages') return void res.writeHead(404).end();
    const err = ANTHROPIC_ERRORS[fake.mode];
    if (err)
      return void res
        .writeHead(err[0], { 'content-type': 'application/json' })
        .end(JSON.stringify({ type: 'error', error: { type: err[1], message: `fake ${err[1]}` } }));
    const last = body.messages.at(-1);
    const answered = Array.isArray(last.content) && last.content.some((b: any) => b.type === 'tool_result');
    const usage = { input_tokens: 120, output_tokens: 0, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 };
    const block = answered ? { type: 'text', text: ANSWER } : { type: 'tool_use', id: 'toolu_01', name: 'lookup_order', input: { order_id: 'ORD-1' } };
    const stop = answered ? 'end_turn' : 'tool_use';
    if (!body.stream) {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'msg_01',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [block],
          stop_reason: stop,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 12 },
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    send('message_start', {
      message: {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    if (answered) {
      send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
      send('ping', {});
      for (const w of words(ANSWER)) send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } });
    } else {
      send('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_01', name: 'lookup_order', input: {} } });
      for (const part of ['{"order_id"', ': "ORD-1"}']) send('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: part } });
    }
    send('content_block_stop', { index: 0 });
    send('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 12 } });
    send('message_stop', {});
    res.end();
  });
}

// --- Gemini generateContent / streamGenerateContent ---
const GEMINI_ERRORS: Record<string, [number, string]> = {
  '401': [401, 'UNAUTHENTICATED'],
  '403': [403, 'PERMISSION_DENIED'],
  '429': [429, 'RESOURCE_EXHAUSTED'],
  '500': [500, 'INTERNAL'],
};

export function startFakeGemini(): Promise<FakeProvider> {
  return serve((req, body, res, fake) => {
    const m = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent)(\?alt=sse)?$/.exec(req.url ?? '');
    if (!m) return void res.writeHead(404).end();
    const err = GEMINI_ERRORS[fake.mode];
    if (err)
      return void res
        .writeHead(err[0], { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: err[0], message: `fake ${err[1]}`, status: err[1] } }));
    const last = body.contents.at(-1);
    const answered = last.parts.some((p: any) => p.functionResponse);
    const usageMetadata = { promptTokenCount: 90, candidatesTokenCount: 11, totalTokenCount: 101, cachedContentTokenCount: 64 };
    const candidate = (parts: object[], finish?: string) => ({ content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: finish } : {}) });
    const toolCall = [{ functionCall: { name: 'lookup_order', args: { order_id: 'ORD-1' } } }];
    if (m[2] === 'generateContent') {
      const parts = answered ? [{ text: ANSWER }] : toolCall;
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ candidates: [candidate(parts, 'STOP')], usageMetadata, modelVersion: m[1] }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunks = answered ? words(ANSWER).map((w) => [{ text: w }]) : [toolCall];
    chunks.forEach((parts, i) => {
      const lastChunk = i === chunks.length - 1;
      res.write(
        `data: ${JSON.stringify({ candidates: [candidate(parts, lastChunk ? 'STOP' : undefined)], ...(lastChunk ? { usageMetadata } : {}), modelVersion: m[1] })}\r\n\r\n`,
      );
    });
    res.end();
  });
}
