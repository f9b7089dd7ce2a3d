// Every setting checked at start with one line naming it (docs/deployment.md, "Settings").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from './config.ts';
import { durationSeconds, sizeBytes, traceStreamLimits } from './settings-values.ts';

const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'cfgv-'));
const oneLine = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SettingsError);
    expect((err as Error).message).not.toContain('\n');
    return (err as Error).message;
  }
  throw new Error('no SettingsError');
};

describe('settings checked at start', () => {
  it("LOG_LEVEL: pino's levels in any case, info by default, anything else named with the choices", () => {
    expect(loadSettings(dir(), {}).logLevel).toBe('info');
    expect(loadSettings(dir(), { LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug');
    expect(loadSettings(dir(), { LOG_LEVEL: 'silent' }).logLevel).toBe('silent');
    expect(oneLine(() => loadSettings(dir(), { LOG_LEVEL: 'verbose' }))).toBe(
      "LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'verbose'",
    );
  });

  it('POSTGRES_DSN: a postgres(ql):// URL with a host; the error says what is expected and never shows the password', () => {
    const ok = loadSettings(dir(), { POSTGRES_DSN: 'postgres://u:p@db.example:5432/x' }).memoryStore;
    expect(ok).toMatchObject({ backend: 'postgres', dsn: 'postgres://u:p@db.example:5432/x' });
    expect(oneLine(() => loadSettings(dir(), { POSTGRES_DSN: 'not a url' }))).toMatch(
      /^POSTGRES_DSN must be a URL such as postgresql:\/\/user:password@host:5432\/database/,
    );
    const scheme = oneLine(() => loadSettings(dir(), { POSTGRES_DSN: 'mysql://root:hunter2@db/x' }));
    expect(scheme).toMatch(/scheme 'mysql:'/);
    expect(scheme).not.toContain('hunter2');
    expect(oneLine(() => loadSettings(dir(), { POSTGRES_DSN: 'postgresql://u:hunter2@/x' }))).not.toContain('hunter2');
    expect(oneLine(() => loadSettings(dir(), { POSTGRES_DSN: 'postgresql:///x' }))).toMatch(/no host/);
    expect(loadSettings(dir(), { POSTGRES_DSN: 'postgresql:///x?host=/var/run/postgresql' }).memoryStore.backend).toBe('postgres');
  });

  it('the trace stream limits: defaults 7d, 1GiB, no message cap; durations, sizes and -1 accepted', () => {
    expect(traceStreamLimits({})).toEqual({ maxAgeSeconds: 7 * 86_400, maxBytes: 1024 ** 3, maxMsgs: -1 });
    expect(traceStreamLimits({ TRACE_NATS_MAX_AGE: '72h', TRACE_NATS_MAX_BYTES: '512MiB', TRACE_NATS_MAX_MSGS: '100000' })).toEqual({
      maxAgeSeconds: 72 * 3600,
      maxBytes: 512 * 1024 ** 2,
      maxMsgs: 100_000,
    });
    expect(durationSeconds('X', '3600')).toBe(3600);
    expect(durationSeconds('X', '0')).toBe(0);
    expect(sizeBytes('X', '-1')).toBe(-1);
    expect(sizeBytes('X', '2g')).toBe(2 * 1024 ** 3);
    const nats = { TRACE_SINKS: 'nats' };
    expect(loadSettings(dir(), { ...nats, TRACE_NATS_MAX_AGE: '2d' }).traceNats?.limits.maxAgeSeconds).toBe(172_800);
    expect(oneLine(() => loadSettings(dir(), { ...nats, TRACE_NATS_MAX_AGE: 'a week' }))).toMatch(/^TRACE_NATS_MAX_AGE must be a duration/);
    expect(oneLine(() => loadSettings(dir(), { ...nats, TRACE_NATS_MAX_BYTES: '1TB' }))).toMatch(/^TRACE_NATS_MAX_BYTES must be a size/);
    expect(oneLine(() => loadSettings(dir(), { ...nats, TRACE_NATS_MAX_BYTES: '0' }))).toMatch(/^TRACE_NATS_MAX_BYTES/);
    expect(oneLine(() => loadSettings(dir(), { ...nats, TRACE_NATS_MAX_MSGS: '1.5' }))).toMatch(/^TRACE_NATS_MAX_MSGS must be a whole number/);
  });

  it('RETENTION_*: unset keeps for ever; ages and the interval are durations; bad values are one line naming the setting', () => {
    expect(loadSettings(dir(), {}).retention).toEqual({ tasksMaxAgeSeconds: null, checkpointsMaxAgeSeconds: null, intervalSeconds: 3600, batchSize: 500 });
    expect(
      loadSettings(dir(), { RETENTION_TASKS_MAX_AGE: '7d', RETENTION_CHECKPOINTS_MAX_AGE: '0', RETENTION_INTERVAL: '30m', RETENTION_BATCH_SIZE: '50' })
        .retention,
    ).toEqual({ tasksMaxAgeSeconds: 7 * 86_400, checkpointsMaxAgeSeconds: null, intervalSeconds: 1800, batchSize: 50 });
    expect(oneLine(() => loadSettings(dir(), { RETENTION_TASKS_MAX_AGE: 'a week' }))).toMatch(/^RETENTION_TASKS_MAX_AGE must be a duration such as 7d/);
    expect(oneLine(() => loadSettings(dir(), { RETENTION_CHECKPOINTS_MAX_AGE: '-1' }))).toMatch(/^RETENTION_CHECKPOINTS_MAX_AGE must be a duration/);
    expect(oneLine(() => loadSettings(dir(), { RETENTION_INTERVAL: '0' }))).toBe(
      "RETENTION_INTERVAL must be at least 1s (a duration such as 1h, 30m, 90s), got '0'",
    );
    expect(oneLine(() => loadSettings(dir(), { RETENTION_BATCH_SIZE: '0' }))).toBe("RETENTION_BATCH_SIZE must be an integer between 1 and 100000, got '0'");
    expect(oneLine(() => loadSettings(dir(), { RETENTION_BATCH_SIZE: 'lots' }))).toMatch(/^RETENTION_BATCH_SIZE must be an integer/);
  });

  it('CHECKPOINT_DURABILITY: exit by default, async or sync, anything else a one-line error', () => {
    expect(loadSettings(dir(), {}).checkpointDurability).toBe('exit');
    expect(loadSettings(dir(), { CHECKPOINT_DURABILITY: 'Async' }).checkpointDurability).toBe('async');
    expect(loadSettings(dir(), { CHECKPOINT_DURABILITY: 'sync' }).checkpointDurability).toBe('sync');
    expect(oneLine(() => loadSettings(dir(), { CHECKPOINT_DURABILITY: 'always' }))).toBe(
      "CHECKPOINT_DURABILITY must be one of exit, async, sync, got 'always'",
    );
  });
});
