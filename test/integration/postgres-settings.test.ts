// Choosing the PostgreSQL memory store, and its DSN's password kept out of every answer, log
// line and error (spec 2.3: backend and postgres_dsn are immutable at runtime).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPostgresStore, PostgresStoreError } from '../../src/main/runtime/store/postgres/store.ts';
import { loadSettings, SettingsError } from '../../src/main/runtime/config.ts';
import { EXAMPLE, REPO, tempDir } from './helpers/runtime.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

const SECRET = 'sekret-Pa55word';
const withPassword = (dsn: string) => {
  const u = new URL(dsn);
  u.password = SECRET;
  return u.toString();
};

/** Runs `agent-studio runtime` until its ready line (or its exit); returns what it printed. */
function runtime(env: Record<string, string>): Promise<{ code: number | null; out: string; err: string; url?: string; stop(): Promise<string> }> {
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', EXAMPLE, '--port', '0', '--data-dir', tempDir('pg-settings')],
    {
      env: { PATH: process.env.PATH, AGENT_ID: 'pg-settings', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const stop = () =>
    new Promise<string>((r) => {
      child.once('exit', () => r(err));
      child.kill('SIGTERM');
    });
  return new Promise((resolve) => {
    child.stdout.on('data', (d) => {
      out += d;
      const url = / ready at (http:\/\/\S+\/)/.exec(out)?.[1];
      if (url) resolve({ code: null, out, err, url, stop });
    });
    child.once('exit', (code) => resolve({ code, out, err, stop: async () => err }));
  });
}

describe('the PostgreSQL memory store settings', () => {
  it('MEMORY_BACKEND and POSTGRES_DSN: postgres when a DSN is given, a clear error without one or with a bad value', () => {
    expect(loadSettings(EXAMPLE, { POSTGRES_DSN: TEST_DSN }).memoryStore).toMatchObject({
      backend: 'postgres',
      schema: 'public',
      poolMax: 10,
      leaseMs: 15_000,
    });
    expect(loadSettings(EXAMPLE, {}).memoryStore).toEqual({ backend: 'sqlite', leaseMs: 15_000 });
    expect(() => loadSettings(EXAMPLE, { MEMORY_BACKEND: 'postgres' })).toThrow(
      new SettingsError('MEMORY_BACKEND=postgres needs POSTGRES_DSN (postgresql://user:password@host:5432/database)'),
    );
    expect(() => loadSettings(EXAMPLE, { MEMORY_BACKEND: 'mysql' })).toThrow(/MEMORY_BACKEND must be sqlite or postgres, got 'mysql'/);
    expect(() => loadSettings(EXAMPLE, { POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: 'a;drop' })).toThrow(/POSTGRES_SCHEMA must be a plain identifier/);
  });

  it('a database that cannot be reached: the error names it with the password hidden', async () => {
    const dsn = `postgresql://agent:${SECRET}@127.0.0.1:1/agents`;
    const err = await openPostgresStore({ dsn }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect((err as Error).message).toContain('cannot open the PostgreSQL memory store at postgresql://agent:***@127.0.0.1:1/agents');
    expect((err as Error).message).not.toContain(SECRET);
    const started = await runtime({ MEMORY_BACKEND: 'postgres', POSTGRES_DSN: dsn });
    expect(started.code).toBe(1);
    expect(started.err).toContain('agent-studio runtime: cannot open the PostgreSQL memory store at postgresql://agent:***@127.0.0.1:1/agents');
    expect(started.err).not.toContain(SECRET);
  });

  it('a running runtime on PostgreSQL: memory config shows the DSN redacted, refuses to change it, and never logs the password', async () => {
    await ensurePostgres();
    const schema = newSchema('settings');
    // Trust authentication here ignores the password; it must still never be shown.
    const rt = await runtime({ POSTGRES_DSN: withPassword(TEST_DSN), POSTGRES_SCHEMA: schema, LOG_LEVEL: 'debug' });
    try {
      expect(rt.url, rt.err).toBeDefined();
      const config = (await (await fetch(`${rt.url}api/v1/memory/config`)).json()) as { data: Record<string, unknown> };
      expect(config.data).toMatchObject({ backend: 'postgres', postgres_dsn: withPassword(TEST_DSN).replace(SECRET, '***') });
      const patch = await fetch(`${rt.url}api/v1/memory/config`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ postgres_dsn: 'postgresql://x@y/z' }),
      });
      expect(patch.status).toBe(422);
      expect(((await patch.json()) as { error: { code: string } }).error.code).toBe('IMMUTABLE_FIELD');
      const answer = await fetch(rt.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hello' }] } },
        }),
      });
      expect(((await answer.json()) as { result: { status: { state: string } } }).result.status.state).toBe('completed');
    } finally {
      const log = await rt.stop();
      await dropSchema(schema);
      expect(log.length).toBeGreaterThan(0);
      expect(log).not.toContain(SECRET);
    }
  });
});
