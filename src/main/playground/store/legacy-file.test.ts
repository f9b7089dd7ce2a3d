// A Playground database written by the earlier store (test/fixtures/legacy-stores): it opens
// with its recorded hashes unchanged, its session and run read back decoded, and an edited
// migration is refused naming the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { migrationHash } from '../../common/migrations/runner.ts';
import { openDatabase, StoreVersionError } from './db.ts';
import { MIGRATIONS } from './migrations.ts';
import { PlaygroundStore } from './store.ts';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/legacy-stores/playground-v4.sqlite');
const SESSION = 'ses_01JDLEGACY0000000000000000';
const RUN = 'run_01JDLEGACY0000000000000000';

const dirs: string[] = [];
function copyOfFixture(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-legacy-'));
  dirs.push(dir);
  const file = path.join(dir, 'playground.sqlite');
  fs.copyFileSync(FIXTURE, file);
  return file;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('a Playground database written by the earlier store', () => {
  it('opens with its recorded hashes, and its session and run read back', () => {
    const file = copyOfFixture();
    const store = PlaygroundStore.open(file);
    try {
      const ledger = store.db.prepare('SELECT version, name, sha256 FROM schema_version ORDER BY version').all();
      expect(ledger).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name, sha256: migrationHash(m) })));
      expect(store.getSession(SESSION)).toMatchObject({ title: 'Legacy session', run_count: 1, last_run_status: 'completed' });
      expect(store.getRun(RUN)).toMatchObject({
        status: 'completed',
        input_parts: [{ kind: 'text', text: 'hello from the old schema' }],
        output_parts: [{ kind: 'text', text: 'reply' }],
        scores: [{ name: 'len', value: 1 }],
        metadata: { k: 'v' },
        changed_files: ['agent.ts'],
        code_files: { 'agent.ts': 'a'.repeat(64) },
      });
      expect(store.readEvents(RUN, 0, 10, 10)).toEqual([{ seq: 1, kind: 'status', body: '{"seq":1,"kind":"status"}' }]);
    } finally {
      store.close();
    }
  });

  it('refuses an edited migration, naming the migration and the file', () => {
    const file = copyOfFixture();
    const edited = MIGRATIONS.map((m) => (m.version === 3 ? { ...m, sql: `${m.sql}-- edited\n` } : m));
    expect(() => openDatabase(file, edited)).toThrow(StoreVersionError);
    expect(() => openDatabase(file, edited)).toThrow(
      `migration 3 (runs_by_parent) differs from the one applied to the Playground database ${path.resolve(file)}`,
    );
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare('SELECT COUNT(*) FROM runs').pluck().get()).toBe(1);
    raw.close();
  });
});
