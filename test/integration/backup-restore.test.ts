// The backup and restore of docs/operations.md, "Backup and restore", on real stores: a backup
// taken while the runtime serves, restored into a fresh runtime, continues a conversation that
// was waiting for input when the backup was taken.
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { sendParams, startTestRuntime, tempDir, type TestRuntime } from './helpers/runtime.ts';
import { dropSchema, newSchema, TEST_DSN } from './helpers/postgres.ts';

const run = promisify(execFile);

/** Sends the refund request: the graph asks for the order id (input-required). */
async function pausedTask(rt: TestRuntime): Promise<Task> {
  const t = ((await rt.client.sendMessage(sendParams('I want a refund'))) as { result: Task }).result;
  expect(t.status.state).toBe('input-required');
  return t;
}

/** Answers the question on the restored runtime: the task and its thread continue there. */
async function expectResumed(rt: TestRuntime, t: Task): Promise<void> {
  const restored = ((await rt.client.getTask({ id: t.id })) as { result: Task }).result;
  expect(restored.status.state).toBe('input-required');
  const done = (await rt.client.sendMessage(sendParams('The order id is ORD-12345', { contextId: t.contextId, taskId: t.id }))) as { result: Task };
  expect(done.result.status.state).toBe('completed');
}

it('SQLite: an online backup (better-sqlite3 .backup) restored into a new data dir', async () => {
  const rt = await startTestRuntime();
  let restored: TestRuntime | null = null;
  try {
    const t = await pausedTask(rt);
    const backup = path.join(tempDir('backup'), 'memory.sqlite');
    const db = new Database(path.join(rt.dataDir, 'memory.sqlite'), { readonly: true });
    await db.backup(backup); // while the runtime serves
    db.close();
    expect(new Database(backup, { readonly: true }).pragma('integrity_check', { simple: true })).toBe('ok');
    await rt.close();
    const dataDir = tempDir('restored');
    fs.copyFileSync(backup, path.join(dataDir, 'memory.sqlite'));
    restored = await startTestRuntime({ dataDir });
    await expectResumed(restored, t);
  } finally {
    await rt.close();
    await restored?.close();
  }
});

it('PostgreSQL: pg_dump of the schema, the schema lost, pg_restore', async () => {
  const schema = newSchema('backup');
  const env = { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema };
  const rt = await startTestRuntime({ env });
  let restored: TestRuntime | null = null;
  try {
    const t = await pausedTask(rt);
    const dump = path.join(tempDir('pgdump'), 'agents.dump');
    await run('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${dump}`, TEST_DSN]);
    await rt.close();
    await dropSchema(schema);
    await run('pg_restore', ['--clean', '--if-exists', `--dbname=${TEST_DSN}`, dump]);
    restored = await startTestRuntime({ env });
    await expectResumed(restored, t);
  } finally {
    await rt.close();
    await restored?.close();
    await dropSchema(schema);
  }
});
