// Shared by the Playground store tests and the benchmark: a run row with plain defaults
// (a `send` run with no A2A ids yet), inserted straight into the store.
import { newRunId } from '../ids.ts';
import type { NewRun, PlaygroundStore } from './store.ts';

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
