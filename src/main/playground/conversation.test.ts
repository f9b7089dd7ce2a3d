// A branch's conversation read from the store (docs/playground-api.md, "Conversation
// branches"): the turns it shares with the sessions it came from, then its own, paged across
// the segments, each turn with its versions.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { conversation, segmentsOf } from './conversation.ts';
import { newSessionId } from './ids.ts';
import { decodeCursor, PlaygroundStore } from './store/store.ts';
import { insertTestRun } from './store/test-support.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function open(): PlaygroundStore {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-conv-'));
  dirs.push(dir);
  return PlaygroundStore.open(path.join(dir, 'p.sqlite'));
}

describe('a branch of a branch', () => {
  it('reads the shared turns then its own, pages across the segments, and lists each edited turn’s versions', () => {
    const store = open();
    const now = new Date().toISOString();
    const session = (title: string) => store.insertSession(newSessionId(), title, now).session_id;
    const root = session('root');
    const [a, b] = [insertTestRun(store, root), insertTestRun(store, root)];
    insertTestRun(store, root);
    const one = session('branch');
    store.branches.insert({ session_id: one, origin_session_id: root, origin_run_id: b, root_session_id: root, created_at: now });
    const [d, e] = [insertTestRun(store, one), insertTestRun(store, one)];
    const two = session('branch of the branch');
    store.branches.insert({ session_id: two, origin_session_id: one, origin_run_id: e, root_session_id: root, created_at: now });
    const f = insertTestRun(store, two);

    expect(segmentsOf(store, two)).toEqual([
      { session_id: root, before: b },
      { session_id: one, before: e },
      { session_id: two, before: null },
    ]);
    const whole = conversation(store, two, null, 50).items;
    expect(whole.map((t) => [t.run_id, t.session_id])).toEqual([
      [a, root],
      [d, one],
      [f, two],
    ]);
    expect(whole.map((t) => t.versions)).toEqual([
      undefined,
      [
        { session_id: root, run_id: b },
        { session_id: one, run_id: d },
      ],
      [
        { session_id: one, run_id: e },
        { session_id: two, run_id: f },
      ],
    ]);

    // One turn a page: every turn once, in order, across the segment boundaries.
    const paged: string[] = [];
    let after: string | null = null;
    do {
      const p = conversation(store, two, after, 1);
      paged.push(...p.items.map((t) => t.run_id));
      after = p.next_cursor ? decodeCursor(p.next_cursor, 'run_') : null;
    } while (after);
    expect(paged).toEqual([a, d, f]);

    // The root's list holds the root only, with both branches counted.
    const listed = store.listSessions({ limit: 10, before: null });
    expect(listed.items.map((s) => [s.session_id, s.branch_count])).toEqual([[root, 2]]);
    expect(store.getSession(two)?.branch_of).toEqual({ session_id: one, run_id: e, root_session_id: root });
    store.close();
  });
});
