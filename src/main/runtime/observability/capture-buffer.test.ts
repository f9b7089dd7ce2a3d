// The runtime's capture buffer holds a turn's trace events for the batch time (D-82), or the
// longer hold the studio asked for (D-111), and posts them all at once when the turn flushes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CAPTURE_BATCH_MS, type CaptureBody } from '../../../shared/runtime-contract.ts';
import { CaptureBuffer } from './trace.ts';

const servers: http.Server[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const s of servers.splice(0)) s.close();
});

/** A studio stand-in that keeps every capture body it is posted. */
async function studio(): Promise<{ url: string; bodies: CaptureBody[] }> {
  const bodies: CaptureBody[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as CaptureBody);
      res.end('{}');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/internal/capture`, bodies };
}

const event = (name: string) => ({ name, ts: new Date().toISOString() });

describe('CaptureBuffer', () => {
  it('posts after the default batch time, and after the longer hold a studio asked for', () => {
    vi.useFakeTimers();
    const log = pino({ level: 'silent' });
    const plain = new CaptureBuffer('http://127.0.0.1:9/x', 'a', log);
    const held = new CaptureBuffer('http://127.0.0.1:9/x', 'b', log, 250);
    const flushes = [vi.spyOn(plain, 'flush').mockResolvedValue(), vi.spyOn(held, 'flush').mockResolvedValue()];
    plain.add(event('invoke.start'));
    held.add(event('invoke.start'));
    vi.advanceTimersByTime(CAPTURE_BATCH_MS);
    expect(flushes.map((f) => f.mock.calls.length)).toEqual([1, 0]);
    vi.advanceTimersByTime(250 - CAPTURE_BATCH_MS);
    expect(flushes.map((f) => f.mock.calls.length)).toEqual([1, 1]);
  });

  it("delivers a held turn's events in one post when the turn flushes", async () => {
    const s = await studio();
    const buffer = new CaptureBuffer(s.url, 'tok', pino({ level: 'silent' }), 1000);
    for (const name of ['invoke.start', 'span.start', 'span.end', 'invoke.end']) buffer.add(event(name));
    await buffer.flush();
    expect(s.bodies).toHaveLength(1);
    expect(s.bodies[0]).toMatchObject({ capture_token: 'tok' });
    expect(s.bodies[0]!.events.map((e) => e.name)).toEqual(['invoke.start', 'span.start', 'span.end', 'invoke.end']);
  });
});
