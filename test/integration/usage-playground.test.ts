// Tokens and cost in the Playground API (docs/playground-api.md "Tokens and cost"): a real
// studio with its runtime child on a project whose model is a local server speaking the OpenAI
// chat-completions protocol (100 prompt and 4 completion tokens a call). Per run (nodes and
// branches summing to it), per session, the run compare's deltas, and per experiment case.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentCase, ExperimentCompare, ExperimentDetail } from '../../src/shared/experiments.ts';
import type { RunUsage, SessionUsage } from '../../src/shared/usage.ts';
import { sumTotals } from '../../src/shared/usage.ts';
import { startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.ts';
import { REPO, startTestStudio, waitFor, waitForRun, type TestStudio } from './helpers/playground-studio.ts';

describe('tokens and cost in the studio', () => {
  let fake: FakeOpenAi;
  let dir: string;
  let t: TestStudio;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    dir = path.join(REPO, 'test/.tmp', `cost-studio-${Math.random().toString(36).slice(2, 10)}`);
    fs.cpSync(path.join(REPO, 'test/fixtures/cost-agent'), dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '.env'), `OPENAI_BASE_URL=${fake.url}\nOPENAI_API_KEY=k\nOPENAI_MODEL=priced-model\nMODEL_MAX_RETRIES=0\n`);
    fs.mkdirSync(path.join(dir, 'evals'));
    fs.writeFileSync(
      path.join(dir, 'evals', 'cost.jsonl'),
      [
        { id: 'one', input: { text: 'first' } },
        { id: 'two', input: { text: 'second', metadata: { planCalls: 3 } } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    t = await startTestStudio({ projectDir: dir });
    await t.studio.runtime.waitReady(60_000);
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const send = async (session: string, metadata: Record<string, unknown> = {}) => {
    const r = await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: 'How much?' }], metadata });
    expect(r.status).toBe(202);
    return waitForRun(t, r.body.run_id);
  };

  it('answers a run, its nodes and branches, its session and the run compare with tokens and cost', async () => {
    const session = (await t.call('POST', '/sessions', {})).body.session_id;
    const first = await send(session);
    expect(first.status).toBe('completed');
    const u = (await t.call<RunUsage>('GET', `/runs/${first.run_id}/usage`)).body;
    expect(u.totals).toMatchObject({ calls: 4, total_tokens: 416, cost_usd: 0.000432, unpriced_calls: 0 });
    const nodes = u.spans.filter((s) => s.kind === 'node');
    expect(nodes.map((n) => n.node)).toEqual(['plan', 'fan', 'answer']);
    expect(sumTotals(nodes)).toMatchObject({ total_tokens: 416, cost_usd: 0.000432 });
    expect(nodes.find((n) => n.node === 'fan')!.cost_share).toBeCloseTo(0.5, 10);
    expect(
      u.spans
        .filter((s) => s.kind === 'branch')
        .map((b) => b.node)
        .sort(),
    ).toEqual(['fan[a]', 'fan[b]']);
    expect(u.calls).toHaveLength(4);

    const second = await send(session, { planCalls: 3 });
    const s = (await t.call<SessionUsage>('GET', `/sessions/${session}/usage`)).body;
    expect(s.runs.map((r) => r.run_id)).toEqual([first.run_id, second.run_id]);
    expect(s.totals).toMatchObject({ calls: 10, total_tokens: 1040, cost_usd: 0.00108 });

    const cmp = (await t.call('GET', `/compare?left=${first.run_id}&right=${second.run_id}`)).body;
    expect(cmp.usage).toMatchObject({ total_tokens_delta: 208, cost_usd_delta: 0.000216 });
    expect(cmp.usage.left.total_tokens).toBe(416);

    expect((await t.call('GET', '/runs/run_01AAAAAAAAAAAAAAAAAAAAAAAA/usage')).status).toBe(404);
    expect((await t.call('GET', '/sessions/ses_01AAAAAAAAAAAAAAAAAAAAAAAA/usage')).status).toBe(404);
  });

  it('gives each experiment case its tokens and cost, the totals, and the deltas between two experiments', async () => {
    const run = async () => {
      const id = (await t.call('POST', '/experiments', { dataset: 'cost', concurrency: 1 })).body.experiment_id;
      return waitFor(async () => {
        const d = (await t.call<ExperimentDetail>('GET', `/experiments/${id}`)).body;
        return d.status !== 'running' ? d : null;
      }, 60_000);
    };
    const a = await run();
    expect(a.status).toBe('completed');
    const cases = (await t.call<{ items: ExperimentCase[] }>('GET', `/experiments/${a.experiment_id}/cases`)).body.items;
    expect(cases.map((c) => [c.case_id, c.usage?.total_tokens, c.usage?.cost_usd])).toEqual([
      ['one', 416, 0.000432],
      ['two', 624, 0.000648],
    ]);
    expect(cases[0]!.tokens).toEqual({ input: 400, output: 16 });
    expect(a.aggregates.usage).toMatchObject({ calls: 10, total_tokens: 1040, cost_usd: 0.00108 });

    const b = await run();
    const cmp = (await t.call<ExperimentCompare>('GET', `/experiments/compare?left=${a.experiment_id}&right=${b.experiment_id}`)).body;
    expect(cmp.usage).toMatchObject({ total_tokens_delta: 0, cost_usd_delta: 0 });
    expect(cmp.cases.find((c) => c.case_id === 'two')!.usage).toMatchObject({ left: { total_tokens: 624 }, total_tokens_delta: 0 });
  });
});
