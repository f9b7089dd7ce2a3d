// A session's breakpoints in the studio's SQLite: kept per session, listed with whether the
// loaded graph has the node, and removed with the session (and a run's stop with the run).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newSessionId } from '../ids.ts';
import { PlaygroundStore } from '../store/store.ts';
import { insertTestRun } from '../store/test-support.ts';
import type { RuntimeHandle } from '../executor/runtime.ts';
import { BreakpointService } from './breakpoints.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup(graph: unknown) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bp-'));
  dirs.push(dir);
  const store = PlaygroundStore.open(path.join(dir, 'playground.db'));
  const runtime = { controlHeaders: () => ({ authorization: 'Bearer tok' }) } as unknown as RuntimeHandle;
  const client = { graph: async () => (graph ? { ok: true as const, value: graph } : { ok: false as const, reason: 'not_running' as const }) };
  return { store, service: new BreakpointService(store, runtime, client as never) };
}

describe('session breakpoints', () => {
  it('lists each once with whether the graph has its node, and sends them with the credential header', async () => {
    const { store, service } = setup({ nodes: [{ id: 'router' }, { id: 'skills' }] });
    const session = store.insertSession(newSessionId(), 's', new Date().toISOString()).session_id;
    for (const node of ['router', 'router', 'skills[refund]', 'gone', '*']) service.set(session, { node, when: 'before' });
    const listed = (await service.list(session)).map((b) => [b.node, b.found]);
    expect(listed).toHaveLength(4);
    expect(listed).toEqual(
      expect.arrayContaining([
        ['router', true],
        ['skills[refund]', true],
        ['gone', false],
        ['*', true],
      ]),
    );
    const runId = insertTestRun(store, session);
    const control = service.controlFor(store.getRun(runId)!);
    expect(control?.control).toMatchObject({ step: false, continue: false });
    expect(control?.control.breakpoints).toHaveLength(4);
    expect(control?.headers).toEqual({ 'x-agent-studio-control': 'tok' });
    store.close();
  });

  it('answers found null without a runtime, and nothing to send for a session without breakpoints', async () => {
    const { store, service } = setup(null);
    const session = store.insertSession(newSessionId(), 's', new Date().toISOString()).session_id;
    expect(service.controlFor(store.getRun(insertTestRun(store, session))!)).toBeNull();
    service.set(session, { node: 'router', when: 'after' });
    expect((await service.list(session))[0]!.found).toBeNull();
    store.close();
  });

  it('goes with its session', () => {
    const { store, service } = setup(null);
    const session = store.insertSession(newSessionId(), 's', new Date().toISOString()).session_id;
    service.set(session, { node: 'router', when: 'before' });
    store.deleteSession(session);
    expect(store.db.prepare('SELECT count(*) AS n FROM session_breakpoints').get()).toEqual({ n: 0 });
    store.close();
  });
});
