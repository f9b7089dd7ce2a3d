// Shared by the Playground store tests and the benchmark: a run row with plain defaults
// (a `send` run with no A2A ids yet), inserted straight into the store; a store in a fresh
// temporary folder with one session.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newRunId, newSessionId } from '../ids.ts';
import { PlaygroundStore, type NewRun } from './store.ts';

/** A store file in a new temporary folder (`dirs` collects it for the test's cleanup), with one session. */
export function openTestStore(prefix: string, dirs: string[]): { dir: string; store: PlaygroundStore; sessionId: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  const store = PlaygroundStore.open(path.join(dir, 'p.sqlite'));
  const session = store.insertSession(newSessionId(), 't', new Date().toISOString());
  return { dir, store, sessionId: session.session_id };
}

export function insertTestRun(store: PlaygroundStore, sessionId: string, fields: Partial<NewRun> = {}): string {
  const run: NewRun = {
    run_id: newRunId(),
    session_id: sessionId,
    parent_run_id: null,
    origin: 'send',
    status: 'completed',
    context_id: null,
    task_id: null,
    created_at: new Date().toISOString(),
    input_parts: [],
    metadata: {},
    changed_files: [],
    revision: null,
    ...fields,
  };
  store.insertRun(run);
  return run.run_id;
}
