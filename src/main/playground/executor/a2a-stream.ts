// The run's A2A `message/stream` call (spec 4.1) to the supervised runtime: one JSON-RPC
// request over undici's `request` (a kept-alive connection, the body as a Node stream) read
// with eventsource-parser. The official client (`runtimeClient`, a2a.ts) does the same over `fetch`
// and web streams, which cost the studio about twice the CPU a run (docs/performance.md,
// Experiments; D-117); its other calls (tasks/cancel) stay on the official client.
import type { MessageSendParams } from '@a2a-js/sdk';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { request } from 'undici';
import type { StreamEvent } from './stream.ts';

export interface StreamOptions {
  /** Sent with the request (the caller's credential, debug and fork headers). */
  headers: Record<string, string>;
  /** Aborting it closes the stream. */
  signal: AbortSignal;
  /** Hears the HTTP status of the answer (a 401 is a refused credential). */
  onStatus?: (status: number) => void;
}

/** A JSON-RPC error the runtime answered, before or inside the stream. */
export class StreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'StreamRpcError';
  }
}

type RpcErrorBody = { code?: unknown; message?: unknown; data?: unknown };

/** The runtime's JSON-RPC `error` as a StreamRpcError, its message after `lead`. */
function rpcError(lead: string, e: RpcErrorBody): StreamRpcError {
  return new StreamRpcError(Number(e.code), `${lead}${String(e.message)} (code ${String(e.code)})`, e.data);
}

let nextId = 1;

/** Sends `message/stream` at once, and yields the stream's events in order as they are read.
 * The reading throws a clear error when the runtime refuses the request, answers something
 * that is not an event stream, sends an event that is not a JSON-RPC result of this request,
 * or the connection breaks. A stream nobody reads is closed by aborting `signal`. */
export function messageStream(baseUrl: string, params: MessageSendParams, o: StreamOptions): AsyncGenerator<StreamEvent> {
  const id = nextId++;
  const answer = request(baseUrl, {
    method: 'POST',
    headers: { ...o.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'message/stream', params }),
    signal: o.signal,
  });
  // Its failure is thrown to the reader; until then it is not an unhandled rejection.
  answer.catch(() => undefined);
  return events(answer, id, o);
}

async function* events(answer: ReturnType<typeof request>, id: number, o: StreamOptions): AsyncGenerator<StreamEvent> {
  const res = await answer;
  o.onStatus?.(res.statusCode);
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode >= 300 || !type.startsWith('text/event-stream')) throw await refusal(res, type);
  const ready: StreamEvent[] = [];
  let failure: Error | null = null;
  const parser = createParser({
    onEvent: (message) => {
      if (failure) return;
      try {
        ready.push(resultOf(message, id));
      } catch (err) {
        failure = err as Error;
      }
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body) {
      parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
      while (ready.length > 0) yield ready.shift()!;
      if (failure) throw failure;
    }
    // An event the body ends without its blank line is dropped, as the SSE rules say.
    parser.feed(decoder.decode());
    while (ready.length > 0) yield ready.shift()!;
    if (failure) throw failure;
  } finally {
    // The caller may stop reading early: the rest of the body is not wanted.
    if (!res.body.destroyed) res.body.destroy();
  }
}

/** One SSE event as the result it carries; a JSON-RPC error or a stray frame throws. */
function resultOf(message: EventSourceMessage, id: number): StreamEvent {
  let frame: { id?: unknown; result?: unknown; error?: RpcErrorBody };
  try {
    frame = JSON.parse(message.data);
  } catch {
    throw new Error(`the runtime sent a stream event that is not JSON: ${message.data.slice(0, 100)}`);
  }
  if (frame?.error) throw rpcError('the runtime answered a JSON-RPC error in the stream: ', frame.error);
  if (frame?.id !== id) throw new Error(`the runtime sent a stream event for request ${String(frame?.id)}, not ${id}`);
  if (frame.result === undefined || frame.result === null) throw new Error('the runtime sent a stream event without a result');
  return frame.result as StreamEvent;
}

/** The error for an answer that is not an event stream: its JSON-RPC error when it has one. */
async function refusal(res: Awaited<ReturnType<typeof request>>, type: string): Promise<Error> {
  const text = await res.body.text().catch(() => '');
  let rpc: RpcErrorBody | undefined;
  try {
    rpc = (JSON.parse(text) as { error?: typeof rpc }).error;
  } catch {
    rpc = undefined;
  }
  if (rpc && typeof rpc.message === 'string') return rpcError(`the runtime refused message/stream: ${res.statusCode}, `, rpc);
  const what = res.statusCode >= 300 ? `HTTP ${res.statusCode}` : `a ${type || 'body without a content type'} answer instead of an event stream`;
  return new Error(`the runtime refused message/stream: ${what}${text ? `: ${text.slice(0, 200)}` : ''}`);
}
