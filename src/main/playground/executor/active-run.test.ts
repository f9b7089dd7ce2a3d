// The A2A params of a run: its capture token under the reserved key, and for an experiment's
// case the longer hold of its trace events it asks the runtime for (D-111).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureOf, RESERVED_CAPTURE_KEY } from '../../../shared/runtime-contract.ts';
import { BlobStore } from '../store/blobs.ts';
import { insertTestRun, openTestStore } from '../store/test-support.ts';
import { messageOf, newActiveRun } from './active-run.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup() {
  const { dir, store, sessionId } = openTestStore('pg-active-', dirs);
  const runId = insertTestRun(store, sessionId, { status: 'queued', input_parts: [{ kind: 'text', text: 'hi' }] });
  return { row: store.getRun(runId)!, blobs: new BlobStore(path.join(dir, 'blobs')), store };
}

const captureKey = (params: ReturnType<typeof messageOf>) => captureOf((params.metadata as Record<string, unknown>)[RESERVED_CAPTURE_KEY]);

describe('messageOf', () => {
  it("sends the run's capture token, with the runtime's default hold for an interactive run", () => {
    const { row, blobs, store } = setup();
    const run = newActiveRun(row);
    run.captureToken = 'tok';
    expect((messageOf(run, blobs).metadata as Record<string, unknown>)[RESERVED_CAPTURE_KEY]).toEqual({ capture_token: 'tok' });
    store.close();
  });

  it("asks for the experiment's hold, except for a run under the debugger", () => {
    const { row, blobs, store } = setup();
    const run = newActiveRun(row, { captureBatchMs: 250 });
    run.captureToken = 'tok';
    expect(captureKey(messageOf(run, blobs))).toEqual({ token: 'tok', batchMs: 250 });
    const debug = { breakpoints: [], step: true, continue: false };
    expect(captureKey(messageOf(run, blobs, debug))).toEqual({ token: 'tok', batchMs: 50 });
    store.close();
  });
});
