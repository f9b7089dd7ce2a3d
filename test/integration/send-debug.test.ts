// LangGraph's own parallel tasks (Send) as fan-out branches in the debugger (docs/playground-api.md,
// "Breakpoints and stepping"; D-83), through the studio and its runtime child on
// test/fixtures/send-agent (plan -> score, one Send task per word -> collect), with the runtime's
// checkpoints on SQLite and on PostgreSQL: a breakpoint before one task (`score[1]`) pauses that
// task only (the others run, their results held as the step's pending writes, not in the state), and Continue
// runs it alone, every task's output written exactly once; step mode stops the tasks one at a
// time in order; a pause at a task survives a studio restart; after a task, the pause keeps its
// update and Continue writes it without running the task again.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers/runtime.ts';
import { explain, startTestStudio, tempDir, waitFor, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { storedSpanEnds } from './helpers/spans.ts';
import { dropSchema, newSchema, TEST_DSN } from './helpers/postgres.ts';

const FIXTURE = path.join(REPO, 'test/fixtures/send-agent');

/** A copy of the fixture inside the repo (so 'agent-studio/sdk' resolves), with its .env. */
function fixtureCopy(name: string, env: Record<string, string>): string {
  const dir = path.join(REPO, 'test/.tmp', `${name}-${Math.random().toString(36).slice(2, 10)}`);
  fs.cpSync(FIXTURE, dir, { recursive: true, filter: (src) => !src.includes('.agent-studio') });
  fs.writeFileSync(
    path.join(dir, '.env'),
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  return dir;
}

const answerText = (run: { output_parts: { kind: string; text?: string }[] }) => run.output_parts.find((p) => p.kind === 'text')?.text;
const scoredOf = (text: string | undefined) =>
  (text ?? '')
    .replace(/^scored /, '')
    .split(',')
    .sort();

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`Send tasks as branches in the debugger (runtime on ${backend})`, () => {
    const schema = newSchema('senddbg');
    const dataDir = tempDir('studio-send');
    let t: TestStudio;
    let dir: string;
    beforeAll(async () => {
      dir = fixtureCopy(`senddbg-${backend}`, backend === 'postgres' ? { POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema } : {});
      t = await startTestStudio({ projectDir: dir, dataDir });
      await waitFor(async () => (await t.call('GET', '/graph')).status === 200);
    });
    afterAll(async () => {
      await t?.close();
      fs.rmSync(dir, { recursive: true, force: true });
      if (backend === 'postgres') await dropSchema(schema);
    });

    const session = async (title: string) => (await t.call('POST', '/sessions', { title })).body.session_id as string;
    const send = async (s: string, text = 'a b c') => {
      const created = await t.call('POST', `/sessions/${s}/runs`, { parts: [{ kind: 'text', text }] });
      expect(created.status).toBe(202);
      return waitForRun(t, created.body.run_id);
    };
    const resume = async (runId: string, action: 'continue' | 'step') => {
      const res = await t.call('POST', `/runs/${runId}/resume`, { breakpoint: action });
      expect(res.status).toBe(202);
      return waitForRun(t, res.body.run_id);
    };
    const branches = async (runId: string) =>
      (await storedSpanEnds(t.api, runId))
        .filter((e) => e.node.startsWith('score['))
        .map((e) => `${e.node} ${e.status}`)
        .sort();

    it('a breakpoint before score[1] pauses that task only; Continue runs it alone and every output is written once', async () => {
      const s = await session('one');
      expect((await t.call('PUT', `/sessions/${s}/breakpoints`, { node: 'score[1]', when: 'before' })).status).toBe(200);
      const paused = await send(s);
      expect([paused.status, paused.reason], explain(paused)).toEqual(['input_required', 'breakpoint']);
      const pause = (await t.call('GET', `/runs/${paused.run_id}/pause`)).body;
      expect(pause).toMatchObject({ node: 'score[1]', when: 'before', state: 'paused' });
      // The other tasks ran (their spans completed); the paused one did not.
      expect(await branches(paused.run_id)).toEqual(['score[0] completed', 'score[1] interrupted', 'score[2] completed']);
      // The pause is at the checkpoint before the step: none of the step's results is in its state;
      // the finished tasks' results are its pending writes, the paused task's is not.
      const at = await t.call('GET', `/sessions/${s}/checkpoints/${pause.checkpoint_id}`);
      expect(at.status).toBe(200);
      expect(at.body.next).toContain('score');
      expect(at.body.values.scored).toEqual([]);
      const pending = (at.body.pending_writes as { channel: string; value: unknown }[]).filter((w) => w.channel === 'scored').map((w) => w.value);
      expect(pending.flat().sort()).toEqual(['a!', 'c!']);

      const done = await resume(paused.run_id, 'continue');
      expect(done.status, explain(done)).toBe('completed');
      expect(scoredOf(answerText(done))).toEqual(['a!', 'b!', 'c!']);
      expect(await branches(done.run_id)).toEqual(['score[1] completed']);
    });

    it('step mode stops the Send tasks one at a time, in order', async () => {
      const s = await session('step');
      await t.call('PUT', `/sessions/${s}/breakpoints`, { node: '*', when: 'before' });
      let run = await send(s);
      const seen: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        expect([run.status, run.reason], explain(run)).toEqual(['input_required', 'breakpoint']);
        seen.push((await t.call('GET', `/runs/${run.run_id}/pause`)).body.node);
        run = await resume(run.run_id, 'step');
      }
      seen.push((await t.call('GET', `/runs/${run.run_id}/pause`)).body.node);
      expect(seen).toEqual(['plan', 'score', 'score[0]', 'score[1]', 'score[2]', 'collect']);
      await t.call('DELETE', `/sessions/${s}/breakpoints`);
      const done = await resume(run.run_id, 'continue');
      expect(done.status, explain(done)).toBe('completed');
      expect(answerText(done)).toBe('scored a!,b!,c!');
    });

    it('a pause at a Send task survives a studio restart; Continue then finishes the run', async () => {
      const s = await session('restart');
      await t.call('PUT', `/sessions/${s}/breakpoints`, { node: 'score[0]', when: 'before' });
      const paused = await send(s, 'x y');
      expect((await t.call('GET', `/runs/${paused.run_id}/pause`)).body).toMatchObject({ node: 'score[0]', state: 'paused' });
      await t.close();
      t = await startTestStudio({ projectDir: dir, dataDir });
      await waitFor(async () => (await t.call('GET', '/graph')).status === 200);
      expect((await t.call('GET', `/runs/${paused.run_id}/pause`)).body.state).toBe('paused');
      const done = await resume(paused.run_id, 'continue');
      expect(done.status, explain(done)).toBe('completed');
      expect(scoredOf(answerText(done))).toEqual(['x!', 'y!']);
      expect(await branches(done.run_id)).toEqual(['score[0] completed']);
    });

    it('after score[2]: pauses once it ran, its update kept; Continue writes it without running it again', async () => {
      const s = await session('after');
      await t.call('PUT', `/sessions/${s}/breakpoints`, { node: 'score[2]', when: 'after' });
      const paused = await send(s);
      const pause = (await t.call('GET', `/runs/${paused.run_id}/pause`)).body;
      expect(pause).toMatchObject({ node: 'score[2]', when: 'after', state: 'paused' });
      expect(await branches(paused.run_id)).toEqual(['score[0] completed', 'score[1] completed', 'score[2] interrupted']);
      const done = await resume(paused.run_id, 'continue');
      expect(done.status, explain(done)).toBe('completed');
      expect(scoredOf(answerText(done))).toEqual(['a!', 'b!', 'c!']);
      // Only the paused task is in the continued run, handing back its kept update (that the node's
      // code does not run again is checked in send-gates.test.ts).
      expect(await branches(done.run_id)).toEqual(['score[2] completed']);
    });
  });
}
