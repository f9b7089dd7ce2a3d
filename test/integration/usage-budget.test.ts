// Tokens, cost and the per-run budget in the runtime (docs/runtime-traces.md "Model calls",
// docs/project-format.md "Budget"), against a local server speaking the OpenAI
// chat-completions protocol that reports usage (100 prompt tokens, 4 completion tokens a
// call) and counts the requests that reach it. The project calls the model from three nodes,
// one of them in two fan-out branches (test/fixtures/cost-agent).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { foldUsage, sumTotals } from '../../src/shared/usage.ts';
import { loadProject, ProjectLoadError } from '../../src/main/runtime/project/loader.ts';
import { startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.ts';
import { REPO, sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';

const FIXTURE = path.join(REPO, 'test/fixtures/cost-agent');
const env = (fake: FakeOpenAi, model: string) => ({ OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'k', OPENAI_MODEL: model, MODEL_MAX_RETRIES: '0' });
const statusData = (t: Task): Record<string, any> => (t.status.message?.parts.find((p) => p.kind === 'data') as any)?.data;

/** A copy of the fixture with `extra` merged into its manifest. */
function variant(extra: Record<string, unknown>): string {
  const dir = path.join(REPO, 'test/.tmp', `cost-agent-${Math.random().toString(36).slice(2, 10)}`);
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'agent.json'), 'utf8'));
  fs.writeFileSync(path.join(dir, 'agent.json'), JSON.stringify({ ...manifest, ...extra }, null, 2));
  return dir;
}

async function send(rt: TestRuntime, metadata: Record<string, unknown> = {}) {
  const t = ((await rt.client.sendMessage(sendParams('How much does this cost?', {}, { metadata }))) as any).result as Task;
  const traces = rt.traces.filter((e) => e.task_id === t.id);
  return { task: t, traces, calls: traces.filter((e) => e.name === 'model.call') as Record<string, any>[] };
}

const asEvents = (traces: Record<string, unknown>[]) => traces.map((e) => ({ name: String(e.name), data: e }));

describe('tokens and cost per call, node and run', () => {
  let fake: FakeOpenAi;
  const runtimes: TestRuntime[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => {
    for (const rt of runtimes) await rt.close();
    await fake?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  beforeEach(() => {
    fake.requests.length = 0;
    fake.cachedTokens = 0;
  });
  const start = async (projectDir: string, model: string) => {
    const rt = await startTestRuntime({ projectDir, env: env(fake, model) });
    runtimes.push(rt);
    return rt;
  };

  it('prices every call from the project table; the nodes, branches included, sum to the run', async () => {
    const rt = await start(FIXTURE, 'priced-model');
    fake.cachedTokens = 40;
    const { task, traces, calls } = await send(rt);
    expect(task.status.state).toBe('completed');
    expect(calls).toHaveLength(4);
    expect(fake.requests).toHaveLength(4);
    for (const c of calls) {
      expect(c.usage).toEqual({ input_tokens: 100, output_tokens: 4, cache_read_tokens: 40, cache_creation_tokens: 0 });
      // $1 per million prompt tokens (cached ones too: no cachedInput price), $2 out.
      expect(c).toMatchObject({ cost_usd: 0.000108, priced_as: 'priced-model', price_source: 'project' });
    }
    // The branch calls name their branch span, the one the timeline shows.
    const branchSpans = traces.filter((e) => e.name === 'span.start' && e.kind === 'branch');
    const fanCalls = calls.filter((c) => c.node === 'fan');
    expect(fanCalls.map((c) => c.branch).sort()).toEqual(['fan[a]', 'fan[b]']);
    expect(fanCalls.map((c) => c.branch_span_id).sort()).toEqual(branchSpans.map((s) => s.span_id).sort());
    const usage = foldUsage('run', asEvents(traces));
    expect(usage.totals).toMatchObject({
      calls: 4,
      input_tokens: 400,
      output_tokens: 16,
      cache_read_tokens: 160,
      total_tokens: 416,
      cost_usd: 0.000432,
      unpriced_calls: 0,
    });
    const nodes = usage.spans.filter((s) => s.kind === 'node');
    expect(nodes.map((n) => [n.node, n.calls, n.cost_usd])).toEqual([
      ['plan', 1, 0.000108],
      ['fan', 2, 0.000216],
      ['answer', 1, 0.000108],
    ]);
    expect(sumTotals(nodes).cost_usd).toBe(usage.totals.cost_usd);
    expect(sumTotals(nodes).total_tokens).toBe(usage.totals.total_tokens);
    const branches = usage.spans.filter((s) => s.kind === 'branch').map((b) => `${b.node}:${b.total_tokens}`);
    expect(branches.sort()).toEqual(['fan[a]:104', 'fan[b]:104']);
    // The invocation's line says the run's tokens and cost (cache_stats as before).
    const end = traces.find((e) => e.name === 'invoke.end')!;
    expect(end.usage).toEqual({ tokens: 416, cost_usd: 0.000432 });
    expect(end.cache_stats).toMatchObject({ cache_read_tokens: 40, input_tokens: 100 });
  });

  it('prices a default model by its dated name; an unknown model has tokens and no cost', async () => {
    const dflt = await start(FIXTURE, 'gpt-4o-mini-2024-07-18');
    const priced = await send(dflt);
    expect(priced.calls[0]).toMatchObject({ priced_as: 'gpt-4o-mini', price_source: 'default', cost_usd: (100 * 0.15 + 4 * 0.6) / 1e6 });
    const unknown = await start(FIXTURE, 'mystery-model');
    const { calls, traces } = await send(unknown);
    expect(calls.every((c) => c.cost_usd === null && c.priced_as === null && c.usage.input_tokens === 100)).toBe(true);
    const usage = foldUsage('run', asEvents(traces));
    expect(usage.totals).toMatchObject({ total_tokens: 416, cost_usd: null, unpriced_calls: 4, unpriced_models: ['mystery-model'] });
  });

  it('stops a run over its token budget after the crossing call: failed, GUARDRAIL_BLOCKED, budget_exceeded, no further call', async () => {
    const dir = variant({ budget: { maxTokens: 150 } });
    dirs.push(dir);
    const rt = await start(dir, 'priced-model');
    // plan makes three calls in a row: 104 tokens, then 208 (over 150), then none.
    const { task, calls, traces } = await send(rt, { planCalls: 3 });
    expect(task.status.state).toBe('failed');
    expect(statusData(task)).toMatchObject({ errorCode: 'GUARDRAIL_BLOCKED', errorReason: 'budget_exceeded', retriable: false });
    expect(statusData(task).errorMessage).toContain('208 tokens, over its budget of 150');
    expect(fake.requests).toHaveLength(2);
    expect(calls.map((c) => c.status)).toEqual(['completed', 'completed']);
    expect(traces.some((e) => e.name === 'span.start' && e.node === 'fan')).toBe(false);
    expect(traces.find((e) => e.name === 'invoke.end')).toMatchObject({ state: 'failed', errorCode: 'GUARDRAIL_BLOCKED', errorReason: 'budget_exceeded' });
    // Concurrent branches: plan (104), then fan[a] and fan[b] both under way; the first to end
    // crosses 150, the other is cut off (it had started), and answer never calls.
    fake.requests.length = 0;
    const fanned = await send(rt, { planCalls: 1 });
    expect(statusData(fanned.task)).toMatchObject({ errorReason: 'budget_exceeded' });
    expect(fake.requests.map((r) => r.messages[0]!.content).filter((c) => c.startsWith('answer'))).toEqual([]);
    expect(fanned.calls.filter((c) => c.status === 'completed')).toHaveLength(2);
  });

  it('stops a run over its cost budget, and one whose model has no price under a cost budget', async () => {
    const dir = variant({ budget: { maxCostUsd: 0.0002 } });
    dirs.push(dir);
    const rt = await start(dir, 'priced-model');
    const { task } = await send(rt, { planCalls: 3 });
    expect(statusData(task)).toMatchObject({ errorCode: 'GUARDRAIL_BLOCKED', errorReason: 'budget_exceeded' });
    expect(statusData(task).errorMessage).toContain('over its budget of $0.0002');
    expect(fake.requests).toHaveLength(2);
    fake.requests.length = 0;
    const unknown = await start(dir, 'mystery-model');
    const r = await send(unknown, { planCalls: 3 });
    expect(statusData(r.task)).toMatchObject({ errorCode: 'GUARDRAIL_BLOCKED', errorReason: 'budget_exceeded' });
    expect(statusData(r.task).errorMessage).toContain("model 'mystery-model' has no price");
    expect(fake.requests).toHaveLength(1);
  });
});

describe('the budget and prices in the manifest', () => {
  it('names a wrong budget or price with its file, line and field', async () => {
    const dir = variant({ budget: { maxTokens: 0 }, pricing: { 'priced-model': { input: 1, ouput: 2 } } });
    try {
      const err = await loadProject(dir).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ProjectLoadError);
      const text = fs.readFileSync(path.join(dir, 'agent.json'), 'utf8').split('\n');
      const lineOf = (needle: string) => text.findIndex((l) => l.includes(needle)) + 1;
      const diags = (err as ProjectLoadError).diagnostics.map((d) => ({ file: d.file, line: d.line, field: d.field, message: d.message }));
      expect(diags).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            file: 'agent.json',
            line: lineOf('"maxTokens"'),
            field: 'budget.maxTokens',
            message: expect.stringContaining('must be greater than 0'),
          }),
          expect.objectContaining({
            file: 'agent.json',
            line: lineOf('"ouput"'),
            field: 'pricing.priced-model.ouput',
            message: expect.stringContaining("did you mean 'output'?"),
          }),
        ]),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
