// The NATS trace stream's limits (docs/runtime-traces.md, "NATS"; TRACE_NATS_MAX_AGE,
// TRACE_NATS_MAX_BYTES, TRACE_NATS_MAX_MSGS) against the real JetStream at 127.0.0.1:4222:
// created with them and discard-old, and an existing stream with other limits updated to them.
import crypto from 'node:crypto';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { ensureTraceStream } from '../../src/main/runtime/observability/trace-stream.ts';
import { traceStreamLimits } from '../../src/main/runtime/settings-values.ts';

const SECOND = 1_000_000_000;

describe('the NATS trace stream limits', () => {
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const streams: string[] = [];
  const lines: { obj: object; msg: string }[] = [];
  const log = { info: (obj: object, msg: string) => lines.push({ obj, msg }) } as never;
  const name = () => {
    const n = `LIMITS_TEST_${crypto.randomBytes(4).toString('hex')}`;
    streams.push(n);
    return n;
  };

  beforeAll(async () => {
    nc = await connect({ servers: 'nats://127.0.0.1:4222' });
    jsm = await jetstreamManager(nc);
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) await jsm.streams.delete(s).catch(() => undefined);
    lines.length = 0;
  });
  afterAll(async () => nc?.close());

  it('creates a missing stream with the defaults: 7 days, 1 GiB, no message cap, discard old', async () => {
    const stream = name();
    await ensureTraceStream(jsm, stream, `${stream.toLowerCase()}.>`, traceStreamLimits({}), log);
    const c = (await jsm.streams.info(stream)).config;
    expect(c).toMatchObject({ max_age: 7 * 86_400 * SECOND, max_bytes: 1024 ** 3, max_msgs: -1, discard: 'old', subjects: [`${stream.toLowerCase()}.>`] });
    expect(lines.map((l) => l.msg)).toEqual([`NATS trace stream ${stream} created`]);
  });

  it('updates an existing stream with other limits to the configured ones, and says so once', async () => {
    const stream = name();
    const subjects = `${stream.toLowerCase()}.>`;
    await jsm.streams.add({ name: stream, subjects: [subjects], max_age: 0, max_bytes: -1, max_msgs: -1, duplicate_window: 120 * SECOND });
    const limits = traceStreamLimits({ TRACE_NATS_MAX_AGE: '60s', TRACE_NATS_MAX_BYTES: '512MiB', TRACE_NATS_MAX_MSGS: '5000' });
    await ensureTraceStream(jsm, stream, subjects, limits, log);
    const c = (await jsm.streams.info(stream)).config;
    expect(c).toMatchObject({ max_age: 60 * SECOND, max_bytes: 512 * 1024 ** 2, max_msgs: 5000, discard: 'old', subjects: [subjects] });
    // The duplicate window may not exceed the max age.
    expect(c.duplicate_window).toBeLessThanOrEqual(60 * SECOND);
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toMatch(/limits updated \(max_age, max_bytes, max_msgs\)/);
    expect(lines[0].obj).toMatchObject({ was: { max_age: 0, max_bytes: -1, max_msgs: -1 } });

    // Already as configured: left alone, nothing logged.
    await ensureTraceStream(jsm, stream, subjects, limits, log);
    expect(lines).toHaveLength(1);
  });
});
