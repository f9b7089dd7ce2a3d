import { describe, expect, it } from 'vitest';
import { Drain, SHUTTING_DOWN_RPC } from './drain.ts';

describe('Drain', () => {
  it('refuses only the methods that start a turn, and only while draining', () => {
    const drain = new Drain(() => 0);
    expect(drain.rpcRefusal('message/send')).toBeNull();
    expect(drain.reason).toBeNull();
    drain.begin('SIGTERM');
    for (const m of ['message/send', 'message/stream']) {
      expect(drain.rpcRefusal(m)).toMatchObject({ code: SHUTTING_DOWN_RPC, data: { errorCode: 'UPSTREAM_UNAVAILABLE', retriable: true } });
    }
    for (const m of ['tasks/get', 'tasks/cancel', 'tasks/resubscribe']) expect(drain.rpcRefusal(m)).toBeNull();
    expect(drain.reason).toMatch(/^draining: .*SIGTERM/);
  });

  it('resolves whenIdle once the pending work is done, or false when the time is up first', async () => {
    let pending = 1;
    const drain = new Drain(() => pending);
    expect(await drain.whenIdle(1)).toBe(false);
    const idle = drain.whenIdle(60_000);
    drain.changed(); // still pending: nothing happens
    pending = 0;
    drain.changed();
    expect(await idle).toBe(true);
  });
});
