import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageSendParams } from '@a2a-js/sdk';
import { isConnectionError } from './a2a.ts';
import { messageStream, StreamRpcError } from './a2a-stream.ts';
import type { StreamEvent } from './stream.ts';

// The events of a completed answer, recorded from the real runtime (stream.test.ts).
const completed = (JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'stream-recordings.json'), 'utf8')) as Record<string, StreamEvent[]>).completed;
const params: MessageSendParams = { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] } };

type Answer = (req: http.IncomingMessage, res: http.ServerResponse, rpc: { id: number; method: string }) => void;
let answer: Answer = () => {};
const seen: { headers: http.IncomingHttpHeaders; rpc: { id: number; method: string; params: unknown } }[] = [];
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const rpc = JSON.parse(body) as { id: number; method: string; params: unknown };
      seen.push({ headers: req.headers, rpc });
      answer(req, res, rpc);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const frame = (id: unknown, body: object): string => `data: ${JSON.stringify({ jsonrpc: '2.0', id, ...body })}\n\n`;
const sse = (res: http.ServerResponse): void => void res.writeHead(200, { 'content-type': 'text/event-stream' });

async function read(o: { headers?: Record<string, string>; signal?: AbortSignal; onStatus?: (s: number) => void } = {}) {
  const events: StreamEvent[] = [];
  try {
    for await (const ev of messageStream(url, params, { headers: o.headers ?? {}, signal: o.signal ?? new AbortController().signal, onStatus: o.onStatus }))
      events.push(ev);
    return { events, error: null };
  } catch (error) {
    return { events, error: error as Error };
  }
}

describe('the run A2A stream reader (spec 4.1)', () => {
  it('sends message/stream with the caller headers and yields every event in order, however the body is cut', async () => {
    answer = (_req, res, rpc) => {
      sse(res);
      // Frames cut at every 7th byte: events arrive across chunk boundaries.
      const text = completed.map((ev) => frame(rpc.id, { result: ev })).join('');
      for (let i = 0; i < text.length; i += 7) res.write(text.slice(i, i + 7));
      res.end();
    };
    const statuses: number[] = [];
    const got = await read({ headers: { authorization: 'Bearer t0k' }, onStatus: (s) => statuses.push(s) });
    expect(got.error).toBeNull();
    expect(got.events).toEqual(completed);
    expect(statuses).toEqual([200]);
    const last = seen.at(-1)!;
    expect(last.headers.authorization).toBe('Bearer t0k');
    expect(last.headers.accept).toBe('text/event-stream');
    expect(last.rpc).toMatchObject({ method: 'message/stream', params });
  });

  it('a refused request (401 with a JSON-RPC error) throws its code and message, and the status is heard', async () => {
    answer = (_req, res, rpc) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error: { code: -32600, message: 'credential refused' } }));
    };
    const statuses: number[] = [];
    const got = await read({ onStatus: (s) => statuses.push(s) });
    expect(statuses).toEqual([401]);
    expect(got.error).toBeInstanceOf(StreamRpcError);
    expect((got.error as StreamRpcError).code).toBe(-32600);
    expect(got.error!.message).toMatch(/refused message\/stream: 401, credential refused \(code -32600\)/);
  });

  it('an answer that is not an event stream (an HTML page) throws what it was', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>proxy login</html>');
    };
    const got = await read();
    expect(got.events).toEqual([]);
    expect(got.error!.message).toMatch(/a text\/html answer instead of an event stream: <html>proxy login/);
  });

  it('a JSON-RPC error inside the stream throws after the events before it', async () => {
    answer = (_req, res, rpc) => {
      sse(res);
      res.end(frame(rpc.id, { result: completed[0] }) + frame(rpc.id, { error: { code: -32603, message: 'boom', data: { x: 1 } } }));
    };
    const got = await read();
    expect(got.events).toEqual([completed[0]]);
    expect(got.error).toBeInstanceOf(StreamRpcError);
    expect(got.error!.message).toBe('the runtime answered a JSON-RPC error in the stream: boom (code -32603)');
    expect((got.error as StreamRpcError).data).toEqual({ x: 1 });
  });

  it('an event of another request, or one that is not JSON, throws', async () => {
    answer = (_req, res, rpc) => {
      sse(res);
      res.end(frame(rpc.id + 1000, { result: completed[0] }));
    };
    expect((await read()).error!.message).toMatch(/stream event for request \d+, not \d+/);
    answer = (_req, res) => {
      sse(res);
      res.end('data: {not json\n\n');
    };
    expect((await read()).error!.message).toMatch(/not JSON: \{not json/);
  });

  it('an event the body ends without its blank line is dropped, as the SSE rules say', async () => {
    answer = (_req, res, rpc) => {
      sse(res);
      res.end(frame(rpc.id, { result: completed[0] }) + frame(rpc.id, { result: completed[1] }).trimEnd());
    };
    expect(await read()).toEqual({ events: [completed[0]], error: null });
  });

  it('aborting the signal closes the stream; the server sees the connection go', async () => {
    const closed = new Promise<void>((resolve) => {
      answer = (_req, res, rpc) => {
        sse(res);
        res.write(frame(rpc.id, { result: completed[0] }));
        res.on('close', () => resolve());
      };
    });
    const ac = new AbortController();
    const events: StreamEvent[] = [];
    const reading = (async () => {
      for await (const ev of messageStream(url, params, { headers: {}, signal: ac.signal })) {
        events.push(ev);
        ac.abort();
      }
    })();
    await expect(reading).rejects.toThrow();
    await closed;
    expect(events).toEqual([completed[0]]);
  });

  it('a stream that breaks, and a runtime that is not there, are connection errors', async () => {
    answer = (_req, res, rpc) => {
      sse(res);
      res.write(frame(rpc.id, { result: completed[0] }), () => res.destroy());
    };
    const broken = await read();
    expect(broken.events).toEqual([completed[0]]);
    expect(isConnectionError(broken.error)).toBe(true);
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const gone = messageStream(`http://127.0.0.1:${port}/`, params, { headers: {}, signal: new AbortController().signal });
    const error = await gone.next().then(
      () => null,
      (err: unknown) => err,
    );
    expect(isConnectionError(error)).toBe(true);
  });
});
