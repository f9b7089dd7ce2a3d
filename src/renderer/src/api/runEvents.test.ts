// The event-stream client against a scripted fetch: a dropped stream is reopened with
// Last-Event-ID, overlapping replays are deduplicated by seq, and a 404 stops for good.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../../shared/playground.ts';
import { followRunEvents, type StreamConnection } from './runEvents.ts';

function sse(events: Partial<RunEvent>[]): string {
  return events.map((e) => `id: ${e.seq}\nevent: ${e.kind}\ndata: ${JSON.stringify({ run_id: 'run_x', ts: '2026-01-01T00:00:00Z', ...e })}\n\n`).join('');
}

/** A body that delivers `text` in small pieces (events split across chunks), then ends. */
function body(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 7));
      at += 7;
    },
  });
}

const delta = (seq: number, text: string) => ({ seq, kind: 'output.delta' as const, text });

afterEach(() => vi.unstubAllGlobals());

describe('followRunEvents', () => {
  it('reconnects after a drop with Last-Event-ID and applies every event once', async () => {
    const cursors: (string | null)[] = [];
    const answers = [
      // first connection drops after seq 3, before the terminal event
      sse([{ seq: 1, kind: 'run.status', status: 'running' } as Partial<RunEvent>, delta(2, 'Hel'), delta(3, 'lo ')]),
      // the server replays from an older cursor than ours: 2 and 3 come again
      sse([delta(2, 'Hel'), delta(3, 'lo '), delta(4, 'world'), { seq: 5, kind: 'run.status', status: 'completed' } as Partial<RunEvent>]),
    ];
    vi.stubGlobal('fetch', async (_url: string, init: RequestInit) => {
      cursors.push(new Headers(init.headers).get('last-event-id'));
      return new Response(body(answers.shift() ?? ''), { status: 200, headers: { 'content-type': 'text/event-stream' } });
    });
    const seen: RunEvent[] = [];
    const states: StreamConnection[] = [];
    await followRunEvents({
      runId: 'run_x',
      signal: new AbortController().signal,
      onEvent: (e) => seen.push(e),
      onConnection: (s) => states.push(s),
      backoff: [1],
    });
    expect(seen.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(
      seen
        .filter((e) => e.kind === 'output.delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('Hello world');
    expect(cursors).toEqual([null, '3']);
    expect(states).toContain('reconnecting');
    expect(states.at(-1)).toBe('ended');
  });

  it('retries when the studio is briefly unreachable', async () => {
    let calls = 0;
    vi.stubGlobal('fetch', async () => {
      calls += 1;
      if (calls === 1) throw new TypeError('fetch failed');
      return new Response(body(sse([{ seq: 1, kind: 'run.status', status: 'failed', reason: 'runtime_unavailable' } as Partial<RunEvent>])), { status: 200 });
    });
    const seen: RunEvent[] = [];
    await followRunEvents({ runId: 'run_x', signal: new AbortController().signal, onEvent: (e) => seen.push(e), backoff: [1] });
    expect(calls).toBe(2);
    expect(seen).toHaveLength(1);
  });

  it('gives up on a run that does not exist', async () => {
    vi.stubGlobal('fetch', async () => new Response('{"detail":{"error":"not_found"}}', { status: 404 }));
    const states: StreamConnection[] = [];
    await followRunEvents({ runId: 'run_x', signal: new AbortController().signal, onEvent: () => {}, onConnection: (s) => states.push(s), backoff: [1] });
    expect(states.at(-1)).toBe('failed');
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    vi.stubGlobal('fetch', async (_u: string, init: RequestInit) => {
      // a stream that never ends until aborted
      return new Response(
        new ReadableStream({
          start(c) {
            init.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
          },
        }),
        { status: 200 },
      );
    });
    const done = followRunEvents({ runId: 'run_x', signal: controller.signal, onEvent: () => {}, backoff: [1] });
    setTimeout(() => controller.abort(), 20);
    await expect(done).resolves.toBeUndefined();
  });
});
