// The llm_judge assertion with a real model configured (docs/evaluation.md): the project's
// .env points the runtime child at a local server speaking the OpenAI chat-completions
// protocol; the studio main process asks that server to grade the answer with the rubric and
// records the model it used, never the key.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentCase, ExperimentDetail } from '../../src/shared/experiments.ts';
import { startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.ts';
import { copyExample, startTestStudio, waitFor, type TestStudio } from './helpers/playground-studio.ts';

describe('llm_judge with a real model configured', () => {
  let fake: FakeOpenAi;
  let dir: string;
  let t: TestStudio;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    fake.chunks = ['{"score": 0.9, "reason": "polite and answers the question"}'];
    dir = copyExample('judge');
    fs.writeFileSync(path.join(dir, '.env'), `OPENAI_BASE_URL=${fake.url}\nOPENAI_API_KEY=judge-test-key\nOPENAI_MODEL=fake-judge\nMODEL_MAX_RETRIES=0\n`);
    fs.writeFileSync(
      path.join(dir, 'evals', 'judged.jsonl'),
      [
        {
          id: 'kind',
          input: { text: 'Where is my order ORD-23456?' },
          expected: { assertions: [{ type: 'llm_judge', rubric: 'The answer is polite.', min: 0.8 }] },
        },
        {
          id: 'strict',
          input: { text: 'Where is my order ORD-23456?' },
          expected: { assertions: [{ type: 'llm_judge', rubric: 'The answer is a poem.', min: 0.95 }] },
        },
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

  it('asks the configured endpoint with the rubric and the answer, and checks the score against min', async () => {
    const accepted = await t.call('POST', '/experiments', { dataset: 'judged', concurrency: 1 });
    expect(accepted.status).toBe(202);
    const id = accepted.body.experiment_id;
    const d = await waitFor(async () => {
      const r = (await t.call<ExperimentDetail>('GET', `/experiments/${id}`)).body;
      return r.status !== 'running' ? r : null;
    }, 60_000);
    expect(d.model).toEqual({ provider: 'openai-compatible', model: 'fake-judge', base_url_host: new URL(fake.url).host, real: true });
    expect(JSON.stringify(d)).not.toContain('judge-test-key');
    const cases = (await t.call<{ items: ExperimentCase[] }>('GET', `/experiments/${id}/cases`)).body.items;
    expect(cases.find((c) => c.case_id === 'kind')!.assertions[0]).toMatchObject({
      type: 'llm_judge',
      status: 'pass',
      message: 'judged 0.9 (>= 0.8): polite and answers the question',
    });
    expect(cases.find((c) => c.case_id === 'strict')!.assertions[0]).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('judged 0.9, expected at least 0.95'),
    });
    const judged = fake.requests.filter((r) => r.model === 'fake-judge' && r.messages.some((m) => m.content.includes('Rubric:\nThe answer is polite.')));
    expect(judged).toHaveLength(1);
    expect(judged[0]!.stream).toBe(false);
  });

  it('a stop while a case is being judged ends the experiment with that case cancelled; the late verdict changes nothing', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      fake.hold = { until: new Promise<void>((r) => (release = r)), held: resolve };
    });
    let answered!: () => void;
    const judgeAnswered = new Promise<void>((resolve) => (answered = resolve));
    fake.hold!.answered = answered;
    const id = (await t.call('POST', '/experiments', { dataset: 'judged', cases: ['kind'], concurrency: 1 })).body.experiment_id;
    await held; // the case's run ended and its judge has been asked
    const stopped = await t.call<ExperimentDetail>('DELETE', `/experiments/${id}`);
    expect([stopped.status, stopped.body.status, stopped.body.reason]).toEqual([200, 'cancelled', 'user_cancelled']);
    release();
    await judgeAnswered;
    fake.hold = null;
    // Another experiment runs to its end: the studio has long read the judge's answer, and any
    // write waiting with the run log's batch is on disk.
    const next = (await t.call('POST', '/experiments', { dataset: 'judged', cases: ['strict'], concurrency: 1 })).body.experiment_id;
    await waitFor(async () => ((await t.call<ExperimentDetail>('GET', `/experiments/${next}`)).body.status !== 'running' ? true : null), 60_000);
    const after = (await t.call<ExperimentDetail>('GET', `/experiments/${id}`)).body;
    expect([after.status, after.counts.cancelled, after.counts.passed]).toEqual(['cancelled', 1, 0]);
    const cases = (await t.call<{ items: ExperimentCase[] }>('GET', `/experiments/${id}/cases`)).body.items;
    expect(cases.map((c) => [c.case_id, c.status, c.assertions.length])).toEqual([['kind', 'cancelled', 0]]);
  });
});
