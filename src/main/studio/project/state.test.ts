// The project watcher's state: what a run's preparing phase takes as changed files, and the
// experiment case's reuse of the runner's walk (D-99) used once, never by a later run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProjectState } from './state.ts';
import type { RuntimeHandle } from '../../playground/executor/runtime.ts';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'project-state-'));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'agent.json'), '{"name":"t"}');
  fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), 'export const v = 1;\n');
});

afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function state(): ProjectState {
  // A run is active, so a reported change waits for the next run's preparing phase.
  return new ProjectState(dir, {} as RuntimeHandle, () => true, pino({ level: 'silent' }));
}

describe('ProjectState.takePending', () => {
  it('finds an edit the watcher has not reported yet', () => {
    const s = state();
    fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), 'export const v = 2;\n');
    expect(s.takePending()).toEqual(['src/graph.ts']);
    expect(s.takePending()).toEqual([]);
  });

  it("uses the experiment runner's walk once: the next run walks the files and sees an edit made after it", () => {
    const s = state();
    s.caseCode();
    // The case's run, right after the runner's check: nothing changed.
    expect(s.takePending()).toEqual([]);
    // An author's edit and run straight after the experiment's last case.
    fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), 'export const v = 3;\n');
    expect(s.takePending()).toEqual(['src/graph.ts']);
  });

  it('serves one preparing phase per check when several cases run at once, then none', () => {
    const s = state();
    for (let i = 0; i < 4; i++) s.caseCode();
    // Four cases' runs prepare: each takes a check's walk, so an edit made meanwhile is left
    // for the next case's check (which stops the experiment).
    fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), 'export const v = 5;\n');
    for (let i = 0; i < 4; i++) expect(s.takePending()).toEqual([]);
    // Every check used: the next run walks the files itself.
    expect(s.takePending()).toEqual(['src/graph.ts']);
  });

  it("drops the runner's walk when the watcher reports a change", () => {
    const s = state();
    s.caseCode();
    fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), 'export const v = 4;\n');
    s.changed(['src/graph.ts']);
    expect(s.takePending()).toEqual(['src/graph.ts']);
    expect(s.runCode().files['src/graph.ts']).toBeDefined();
  });
});

describe('ProjectState.applyTaken', () => {
  it('holds settled() until the changes a run took are applied, so another run is not invoked on the old code', async () => {
    let finish!: (v: { applied: 'reload' }) => void;
    const runtime = { applyChanges: () => new Promise((r) => (finish = r)) } as unknown as RuntimeHandle;
    const s = new ProjectState(dir, runtime, () => true, pino({ level: 'silent' }));
    const applying = s.applyTaken();
    let settled = false;
    const waiting = s.settled().then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    finish({ applied: 'reload' });
    expect(await applying).toEqual({ applied: 'reload' });
    await waiting;
    expect(settled).toBe(true);
  });
});
