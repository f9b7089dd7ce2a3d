// A memory-store file written before migration hashes were kept (test/fixtures/legacy-stores,
// made by the earlier store): it opens, its old rows read back, its ledger gains the hashes,
// and from then on an edited migration is refused.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { BaseMessage } from '@langchain/core/messages';
import { migrationHash } from '../../common/migrations/runner.ts';
import { migrateSqlite } from '../../common/migrations/sqlite.ts';
import { MIGRATIONS } from './sqlite.ts';
import { cfg, chatGraph, say, useTempStoreFile } from './test-support.ts';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/legacy-stores/runtime-memory-v3.sqlite');
const temp = useTempStoreFile('memstore-legacy-');

describe('a memory-store file from before migration hashes', () => {
  it('opens, records the hashes of its applied migrations, and reads its old rows', async () => {
    fs.copyFileSync(FIXTURE, temp.file);
    const store = temp.open();
    const raw = new Database(temp.file, { readonly: true });
    try {
      expect(raw.prepare('SELECT version, name, sha256 FROM schema_version ORDER BY version').all()).toEqual(
        MIGRATIONS.map((m) => ({ version: m.version, name: m.name, sha256: migrationHash(m) })),
      );
    } finally {
      raw.close();
    }
    expect(await store.listThreads('legacy-agent')).toEqual(['thread-legacy']);
    expect(await store.getMemory('legacy-agent', 'thread-legacy', 'summary')).toEqual({ text: 'old summary' });
    expect(await store.waitingTask('legacy-agent', 'thread-legacy')).toBe('task-legacy');
    expect((await store.taskStore().load('task-legacy'))?.status.state).toBe('input-required');
    const graph = chatGraph(store.checkpointer('legacy-agent'));
    const state = await graph.getState(cfg('thread-legacy'));
    expect((state.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['hi', 'reply 1']);
    await say(graph, 'thread-legacy', 'again'); // and the conversation goes on
    expect(((await graph.getState(cfg('thread-legacy'))).values.messages as BaseMessage[]).map((m) => m.content)).toEqual([
      'hi',
      'reply 1',
      'again',
      'reply 3',
    ]);
  });

  it('refuses an edited migration once the hashes are recorded, naming the file', async () => {
    fs.copyFileSync(FIXTURE, temp.file);
    await temp.open().close();
    const edited = MIGRATIONS.map((m) => (m.version === 2 ? { ...m, sql: `${m.sql}-- edited\n` } : m));
    const db = new Database(temp.file);
    try {
      expect(() => migrateSqlite(db, edited, `the memory store ${temp.file}`)).toThrow(
        `migration 2 (a2a_tasks by context) differs from the one applied to the memory store ${temp.file}`,
      );
    } finally {
      db.close();
    }
  });
});
