// A store outage on the A2A 1.0 bindings (D-50, D-104): while SQLite's write lock is held by
// another connection, a 1.0 send answers HTTP 503 with the JSON-RPC code -32021 (JSON-RPC) or
// the status UNAVAILABLE (HTTP+JSON), with ErrorInfo reason UPSTREAM_UNAVAILABLE and no file
// name, as 0.3 does; once the lock is gone the same send works.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, tempDir, type TestRuntime } from './helpers/runtime.ts';

const userMsg = (t: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: t }] });

async function post(url: string, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

describe('A2A 1.0 while the store cannot be written', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({ dataDir: tempDir('v1-outage'), env: { SQLITE_BUSY_TIMEOUT_MS: '200' } });
  });
  afterAll(async () => rt?.close());

  it("answers 503 in each binding's error shape, then works once the store is back", async () => {
    const rpcSend = { jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: userMsg('Where is ORD-12345?') } };
    const restSend = { message: userMsg('Where is ORD-12345?') };
    const locker = new Database(path.join(rt.dataDir, 'memory.sqlite'));
    locker.exec('BEGIN EXCLUSIVE');
    try {
      const rpc = await post(rt.url, rpcSend);
      expect(rpc.status, rpc.text).toBe(503);
      expect(rpc.type).toContain('application/json');
      const body = JSON.parse(rpc.text);
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32021 } });
      expect(body.error.data).toEqual([
        expect.objectContaining({ reason: 'UPSTREAM_UNAVAILABLE', metadata: { errorReason: 'store_unavailable', retriable: 'true' } }),
      ]);
      expect(rpc.text).not.toContain(rt.dataDir);

      const rest = await post(`${rt.url}v1/message:send`, restSend);
      expect(rest.status, rest.text).toBe(503);
      expect(JSON.parse(rest.text).error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
      expect(rest.text).not.toContain(rt.dataDir);
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    const after = await post(rt.url, { ...rpcSend, params: { message: userMsg('Where is ORD-12345?') } });
    expect(after.status).toBe(200);
    expect(JSON.parse(after.text).result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
