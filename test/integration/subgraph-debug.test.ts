// The debugger inside subgraphs and after fan-out branches (docs/playground-api.md,
// "Breakpoints and stepping" and "Fork and re-run from a checkpoint"), through the studio and
// its runtime child on test/fixtures/inspect-agent (prepare -> inner [lookup -> rank] -> work
// [fan-out a, b, c] -> answer), with the runtime's checkpoints on SQLite and on PostgreSQL:
// a breakpoint before `inner:rank` pauses inside the subgraph and Continue completes; step
// mode steps through the subgraph's nodes; a fork at the subgraph's checkpoint after `lookup`
// with an edited `found` continues at `rank` without prepare or lookup running again; a
// breakpoint after a branch pauses once the branches completed and Continue does not run them
// again.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from './helpers/runtime.ts';
import { startTestStudio, waitFor, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { storedSpanEnds } from './helpers/spans.ts';
import { dropSchema, newSchema, TEST_DSN } from './helpers/postgres.ts';

const FIXTURE = path.join(REPO, 'test/fixtures/inspect-agent');
type Ckpt = { checkpoint_id: string; checkpoint_ns: string; writes: Record<string, string[]>; next: string[] };

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

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`the debugger inside a subgraph and after a branch (runtime on ${backend})`, () => {
    const schema = newSchema('subdbg');
    let t: TestStudio;
    let dir: string;
    beforeAll(async () => {
      dir = fixtureCopy(`subdbg-${backend}`, backend === 'postgres' ? { POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema } : {});
      t = await startTestStudio({ projectDir: dir });
    });
    afterAll(async () => {
      await t?.close();
      fs.rmSync(dir, { recursive: true, force: true });
      if (backend === 'postgres') await dropSchema(schema);
    });

    const session = async (title: string) => (await t.call('POST', '/sessions', { title })).body.session_id as string;
    const send = async (s: string, text = 'hello') => {
      const created = await t.call('POST', `/sessions/${s}/runs`, { parts: [{ kind: 'text', text }] });
      expect(created.status).toBe(202);
      return waitForRun(t, created.body.run_id);
    };
    const resume = async (runId: string, action: 'continue' | 'step') => {
      const res = await t.call('POST', `/runs/${runId}/resume`, { breakpoint: action });
      expect(res.status).toBe(202);
      return waitForRun(t, res.body.run_id);
    };

    it('draws the subgraph in the graph view, and a breakpoint before inner:rank is found there', async () => {
      // The runtime child answers once it has loaded the project.
      const graph = await waitFor(async () => {
        const got = await t.call('GET', '/graph');
        return got.status === 200 && got;
      });
      expect(graph.body.nodes.map((n: { id: string }) => n.id)).toContain('inner');
      const inner = graph.body.subgraphs.find((g: { node: string }) => g.node === 'inner');
      expect(inner.nodes.map((n: { id: string }) => n.id)).toEqual(expect.arrayContaining(['inner:lookup', 'inner:rank']));
      const s = await session('found');
      await t.call('PUT', `/sessions/${s}/breakpoints`, { node: 'inner:rank', when: 'before' });
      const listed = await waitFor(async () => {
        const got = await t.call('GET', `/sessions/${s}/breakpoints`);
        return got.body.items[0].found !== null && got.body.items;
      });
      expect(listed[0]).toMatchObject({ node: 'inner:rank', found: true });
    });

    it('pauses before inner:rank with the subgraph’s checkpoint and namespace; Continue completes', async () => {
      const s = await session('rank');
      await t.call('PUT', `/sessions/${s}/breakpoints`, { node: 'inner:rank', when: 'before' });
      const paused = await send(s);
      expect([paused.status, paused.reason]).toEqual(['input_required', 'breakpoint']);
      const pause = (await t.call('GET', `/runs/${paused.run_id}/pause`)).body;
      expect(pause).toMatchObject({ node: 'inner:rank', when: 'before', state: 'paused' });
      expect(pause.checkpoint_ns).toMatch(/^inner:/);
      const at = await t.call('GET', `/sessions/${s}/checkpoints/${pause.checkpoint_id}?ns=${encodeURIComponent(pause.checkpoint_ns)}`);
      expect(at.status).toBe(200);
      expect(at.body).toMatchObject({ checkpoint_ns: pause.checkpoint_ns, next: ['rank'], writes: { lookup: ['found'] } });
      expect(at.body.values.found).toEqual(['a', 'b', 'c']);
      // The run's checkpoints list the subgraph's, with their namespace.
      const mine = (await t.call('GET', `/runs/${paused.run_id}/checkpoints`)).body.items as Ckpt[];
      expect(mine.filter((c) => c.checkpoint_ns === pause.checkpoint_ns).map((c) => c.checkpoint_id)).toContain(pause.checkpoint_id);

      const done = await resume(paused.run_id, 'continue');
      expect(done.status).toBe('completed');
      expect(answerText(done)).toBe('found a1,b1,c1 (score 3)');
      const nodes = (await storedSpanEnds(t.api, done.run_id)).map((e) => e.node);
      expect(nodes).toEqual(expect.arrayContaining(['rank', 'work', 'answer']));
      expect(nodes).not.toContain('lookup');
      expect(nodes).not.toContain('prepare');
    });

    it('steps through the subgraph’s nodes in step mode', async () => {
      const s = await session('step');
      await t.call('PUT', `/sessions/${s}/breakpoints`, { node: '*', when: 'before' });
      let run = await send(s);
      const seen: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        seen.push((await t.call('GET', `/runs/${run.run_id}/pause`)).body.node);
        run = await resume(run.run_id, 'step');
      }
      seen.push((await t.call('GET', `/runs/${run.run_id}/pause`)).body.node);
      expect(seen).toEqual(['prepare', 'inner', 'inner:lookup', 'inner:rank', 'work']);
      await t.call('DELETE', `/sessions/${s}/breakpoints`);
      expect((await resume(run.run_id, 'continue')).status).toBe('completed');
    });

    it('forks at the subgraph’s checkpoint after lookup with an edit: continues at rank, earlier nodes do not run again', async () => {
      const s = await session('origin');
      const origin = await send(s);
      expect(origin.status).toBe('completed');
      const mine = (await t.call('GET', `/runs/${origin.run_id}/checkpoints`)).body.items as Ckpt[];
      const afterLookup = mine.find((c) => c.checkpoint_ns && c.writes.lookup)!;
      expect(afterLookup).toMatchObject({ next: ['rank'] });
      expect(afterLookup.checkpoint_ns).toMatch(/^inner:/);
      const res = await t.call('POST', `/runs/${origin.run_id}/fork`, {
        checkpoint_id: afterLookup.checkpoint_id,
        checkpoint_ns: afterLookup.checkpoint_ns,
        values: { found: ['x', 'y'] },
      });
      expect(res.status).toBe(202);
      const run = await waitForRun(t, res.body.run_id);
      expect(run.status).toBe('completed');
      expect(run.fork).toMatchObject({ checkpoint_id: afterLookup.checkpoint_id, checkpoint_ns: afterLookup.checkpoint_ns, node: 'lookup' });
      expect(answerText(run)).toBe('found x1,y1 (score 2)');
      const nodes = (await storedSpanEnds(t.api, run.run_id)).map((e) => e.node);
      expect(nodes).toEqual(expect.arrayContaining(['rank', 'work', 'answer']));
      expect(nodes).not.toContain('prepare');
      expect(nodes).not.toContain('lookup');
      // The origin's thread is unchanged: its answer stays.
      expect(answerText(await waitForRun(t, origin.run_id))).toBe('found a1,b1,c1 (score 3)');
      // A re-run from there (no edit) gives the original answer.
      const rerun = await t.call('POST', `/runs/${origin.run_id}/fork`, { checkpoint_id: afterLookup.checkpoint_id, checkpoint_ns: afterLookup.checkpoint_ns });
      expect(answerText(await waitForRun(t, rerun.body.run_id))).toBe('found a1,b1,c1 (score 3)');
      // From the subgraph's input checkpoint, the subgraph runs from its first node; the parent's
      // nodes before it still do not.
      const input = mine.find((c) => c.checkpoint_ns === afterLookup.checkpoint_ns && c.next.includes('lookup'))!;
      const fromInput = await t.call('POST', `/runs/${origin.run_id}/fork`, { checkpoint_id: input.checkpoint_id, checkpoint_ns: input.checkpoint_ns });
      expect(fromInput.status).toBe(202);
      const whole = await waitForRun(t, fromInput.body.run_id);
      expect(answerText(whole)).toBe('found a1,b1,c1 (score 3)');
      const ran = (await storedSpanEnds(t.api, whole.run_id)).map((e) => e.node);
      expect(ran).toEqual(expect.arrayContaining(['lookup', 'rank']));
      expect(ran).not.toContain('prepare');
      // A namespace of no subgraph the graph has is refused before anything runs.
      const bad = await t.call('POST', `/runs/${origin.run_id}/fork`, { checkpoint_id: afterLookup.checkpoint_id, checkpoint_ns: 'nowhere:1' });
      expect(bad.status).toBe(400);
    });

    it('pauses after a fan-out branch once the branches completed; Continue writes their results without running them again', async () => {
      const s = await session('branch');
      await t.call('PUT', `/sessions/${s}/breakpoints`, { node: 'work[b]', when: 'after' });
      const paused = await send(s);
      expect([paused.status, paused.reason]).toEqual(['input_required', 'breakpoint']);
      const pause = (await t.call('GET', `/runs/${paused.run_id}/pause`)).body;
      expect(pause).toMatchObject({ node: 'work[b]', when: 'after', state: 'paused' });
      // The node's result is not written yet: the checkpoint is the one before `work`.
      const at = await t.call('GET', `/sessions/${s}/checkpoints/${pause.checkpoint_id}`);
      expect(at.body.next).toEqual(['work']);
      const branches = (await storedSpanEnds(t.api, paused.run_id)).map((e) => e.node).filter((n) => n.startsWith('work['));
      expect(branches.sort()).toEqual(['work[a]', 'work[b]', 'work[c]']);
      const done = await resume(paused.run_id, 'continue');
      expect(done.status).toBe('completed');
      expect(answerText(done)).toBe('found a1,b1,c1 (score 3)');
      const again = (await storedSpanEnds(t.api, done.run_id)).map((e) => e.node);
      expect(again.filter((n) => n.startsWith('work['))).toEqual([]);
      expect(again).toContain('answer');
    });
  });
}
