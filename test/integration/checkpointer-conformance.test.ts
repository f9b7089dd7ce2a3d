// LangGraph's own checkpointer conformance suite (@langchain/langgraph-checkpoint-validation)
// against both memory-store backends' checkpointers: the SQLite saver written here and
// LangGraph's PostgreSQL saver with the runtime's thread ownership on top.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vitest from 'vitest';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { openSqliteStore } from '../../src/main/runtime/store/sqlite.ts';
import { openPostgresStore } from '../../src/main/runtime/store/postgres/store.ts';
import type { MemoryStore } from '../../src/main/runtime/store/types.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

// The suite expects vitest's globals (this project does not turn them on): lend them to it.
Object.assign(globalThis, {
  describe: vitest.describe,
  it: vitest.it,
  test: vitest.test,
  expect: vitest.expect,
  beforeAll: vitest.beforeAll,
  afterAll: vitest.afterAll,
  beforeEach: vitest.beforeEach,
  afterEach: vitest.afterEach,
});
const { validate } = await import('@langchain/langgraph-checkpoint-validation');

const stores = new Map<BaseCheckpointSaver, () => Promise<void>>();

validate({
  checkpointerName: 'SqliteCheckpointSaver (memory store, SQLite)',
  createCheckpointer() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conformance-'));
    const store: MemoryStore = openSqliteStore(path.join(dir, 'memory.sqlite'));
    const saver = store.checkpointer('conformance');
    stores.set(saver, async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    return saver;
  },
  async destroyCheckpointer(saver) {
    await stores.get(saver)?.();
  },
});

validate({
  checkpointerName: 'OwnedPostgresSaver (memory store, PostgreSQL)',
  beforeAll: () => ensurePostgres(),
  beforeAllTimeout: 30_000,
  async createCheckpointer() {
    const schema = newSchema('conf');
    const store = await openPostgresStore({ dsn: TEST_DSN, schema });
    const saver = store.checkpointer('conformance');
    stores.set(saver, async () => {
      await store.close();
      await dropSchema(schema);
    });
    return saver;
  },
  async destroyCheckpointer(saver) {
    await stores.get(saver)?.();
  },
});
