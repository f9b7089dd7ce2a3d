// The user a thread belongs to, in the memory store on both backends (docs/security.md, "Whose
// conversation is whose"; docs/decisions.md D-47): the first claim wins, atomically across
// handles; threads written without a claim belong to the anonymous user ''; a delete removes
// the ownership, a migration of the agent id keeps the user. SQLite on a temp file;
// PostgreSQL in a fresh schema per test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/main/runtime/store/sqlite.ts';
import { openPostgresStore } from '../../src/main/runtime/store/postgres/store.ts';
import { chatGraph, say } from '../../src/main/runtime/store/test-support.ts';
import type { MemoryStore } from '../../src/main/runtime/store/types.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

interface Backend {
  name: string;
  setup(): void;
  open(): Promise<MemoryStore>;
  teardown(): Promise<void>;
}

function sqliteBackend(): Backend {
  let dir = '';
  return {
    name: 'sqlite',
    setup: () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thread-users-'));
    },
    open: async () => openSqliteStore(path.join(dir, 'memory.sqlite')),
    teardown: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresBackend(): Backend {
  let schema = '';
  return {
    name: 'postgres',
    setup: () => {
      schema = newSchema('users');
    },
    open: () => openPostgresStore({ dsn: TEST_DSN, schema, replica: 'test', poolMax: 4 }),
    teardown: () => dropSchema(schema),
  };
}

describe.each([sqliteBackend(), postgresBackend()])('thread users on $name', (backend) => {
  const opened: MemoryStore[] = [];
  const open = async () => {
    const store = await backend.open();
    opened.push(store);
    return store;
  };
  beforeAll(() => ensurePostgres(), 30_000);
  beforeEach(() => backend.setup());
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await backend.teardown();
  });

  it('the first claim of a thread wins; the owner finds it again, anyone else is refused', async () => {
    const store = await open();
    expect(await store.claimThread('agent', 'ctx-a', 'alice')).toBe('claimed');
    expect(await store.claimThread('agent', 'ctx-a', 'alice')).toBe('owner');
    expect(await store.claimThread('agent', 'ctx-a', 'bob')).toBe('other');
    expect(await store.claimThread('other-agent', 'ctx-a', 'alice')).toBe('other');
    expect(await store.threadUser('agent', 'ctx-a')).toBe('alice');
    expect(await store.threadUser('other-agent', 'ctx-a')).toBeNull();
    expect(await store.threadUser('agent', 'ctx-unknown')).toBeNull();
    // The claimed thread is the agent's: its turns write there as before.
    await say(chatGraph(store.checkpointer('agent')), 'ctx-a', 'hi');
    expect(await store.listThreads('agent')).toEqual(['ctx-a']);
    // A second handle (another process, another replica) sees the same owner.
    const second = await open();
    expect(await second.claimThread('agent', 'ctx-a', 'bob')).toBe('other');
    expect(await second.threadUser('agent', 'ctx-a')).toBe('alice');
  });

  it('two handles claiming one new thread at once: exactly one wins', async () => {
    const [a, b] = [await open(), await open()];
    const claims = await Promise.all(['alice', 'bob', 'carol', 'dave'].map((user, i) => (i % 2 ? a : b).claimThread('agent', 'ctx-race', user)));
    expect(claims.filter((c) => c === 'claimed')).toHaveLength(1);
    expect(claims.filter((c) => c === 'other')).toHaveLength(3);
  });

  it("a thread written without a claim belongs to the anonymous user '': no named user can claim it", async () => {
    const store = await open();
    await say(chatGraph(store.checkpointer('agent')), 'ctx-anon', 'hi');
    expect(await store.threadUser('agent', 'ctx-anon')).toBe('');
    expect(await store.claimThread('agent', 'ctx-anon', 'alice')).toBe('other');
    expect(await store.claimThread('agent', 'ctx-anon', '')).toBe('owner');
  });

  it("lists one user's threads; delete removes the ownership, migration keeps the user", async () => {
    const store = await open();
    await store.claimThread('agent', 'ctx-1', 'alice');
    await store.claimThread('agent', 'ctx-2', 'bob');
    await store.claimThread('agent', 'ctx-3', 'alice');
    await say(chatGraph(store.checkpointer('agent')), 'ctx-4', 'hi');
    expect(await store.listThreads('agent', 'alice')).toEqual(['ctx-1', 'ctx-3']);
    expect(await store.listThreads('agent', 'bob')).toEqual(['ctx-2']);
    expect(await store.listThreads('agent', '')).toEqual(['ctx-4']);
    expect(await store.listThreads('agent', 'nobody')).toEqual([]);

    expect(await store.migrateAgentId('agent', 'agent-v2')).toBe(4);
    expect(await store.threadUser('agent', 'ctx-1')).toBeNull();
    expect(await store.threadUser('agent-v2', 'ctx-1')).toBe('alice');
    expect(await store.claimThread('agent-v2', 'ctx-1', 'alice')).toBe('owner');
    expect(await store.listThreads('agent-v2', 'alice')).toEqual(['ctx-1', 'ctx-3']);

    await store.deleteThread('ctx-1');
    expect(await store.threadUser('agent-v2', 'ctx-1')).toBeNull();
    // A deleted thread's id is free again.
    expect(await store.claimThread('agent-v2', 'ctx-1', 'bob')).toBe('claimed');
    await store.deleteAllThreads('agent-v2');
    expect(await store.threadUser('agent-v2', 'ctx-3')).toBeNull();
    expect(await store.listThreads('agent-v2', 'alice')).toEqual([]);
  });
});
