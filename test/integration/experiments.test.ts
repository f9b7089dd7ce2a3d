// Datasets and experiments over real HTTP on a copy of the example (docs/playground-api.md,
// "Datasets and experiments"; docs/evaluation.md): dataset files through the source view's
// save path (and its conflict), "Add to dataset" from a run, experiments over the example's
// dataset (all pass, repeat, a failing assertion's message, cancel, a code change stopping
// it, interactive runs beside it) and the compare of two experiments across a code change.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../src/shared/datasets.ts';
import type { ExperimentCase, ExperimentCompare, ExperimentDetail } from '../../src/shared/experiments.ts';
import { openEditableStudio, openEvents, waitFor, waitForRun, type EditableStudio, type TestStudio } from './helpers/playground-studio.ts';

describe('datasets and experiments', () => {
  let dir: string;
  let t: TestStudio;
  let studio: EditableStudio;
  const delay = process.env.SCRIPTED_DELAY_MS;

  beforeAll(async () => {
    process.env.SCRIPTED_DELAY_MS = '0';
    studio = await openEditableStudio('experiments');
    ({ dir, t } = studio);
  });
  afterAll(async () => {
    await studio?.close();
    if (delay === undefined) delete process.env.SCRIPTED_DELAY_MS;
    else process.env.SCRIPTED_DELAY_MS = delay;
  });

  const studioCall = (method: string, p: string, body?: unknown) =>
    fetch(`${t.url}${p.slice(1)}`, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined }).then(
      async (r) => ({
        status: r.status,
        body: (await r.json()) as any,
      }),
    );
  const start = async (body: Record<string, unknown>) => {
    const res = await t.call('POST', '/experiments', body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.experiment_id as string;
  };
  const detail = async (id: string) => (await t.call<ExperimentDetail>('GET', `/experiments/${id}`)).body;
  const finished = (id: string, timeoutMs = 120_000) =>
    waitFor(async () => ((await detail(id)).status !== 'running' ? detail(id) : null), timeoutMs, `experiment ${id}`);
  const cases = async (id: string, query = '') => (await t.call<{ items: ExperimentCase[] }>('GET', `/experiments/${id}/cases${query}`)).body.items;
  const writeDataset = (name: string, lines: unknown[]) =>
    fs.writeFileSync(path.join(dir, 'evals', `${name}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const send = async (session: string, text: string) => {
    const res = await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text }] });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return waitForRun(t, res.body.run_id);
  };

  let baseline: string;

  it('lists the example dataset and runs it: every case passes, on hidden sessions, beside an interactive run', async () => {
    const list = await t.call('GET', '/datasets');
    expect(list.body.items).toEqual([expect.objectContaining({ name: 'support', file: 'evals/support.jsonl', diagnostics_count: 0 })]);
    expect(list.body.items[0].case_count).toBeGreaterThanOrEqual(20);

    baseline = await start({ dataset: 'support', concurrency: 4 });
    // The author can still send while the experiment runs (its runs do not hold the slot).
    const session = (await t.call('POST', '/sessions', {})).body.session_id;
    const interactive = await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: 'Where is my order ORD-23456?' }] });
    expect(interactive.status).toBe(202);
    await waitForRun(t, interactive.body.run_id);

    const d = await finished(baseline);
    expect(d).toMatchObject({ status: 'completed', reason: null, dataset: 'support', repeat: 1 });
    expect(d.counts.passed).toBe(d.counts.total);
    expect(d.pass_rate).toBe(1);
    expect(d.code_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(d.code_files)).toContain('src/skills.ts');
    expect(Object.keys(d.code_files).some((f) => f.startsWith('evals/'))).toBe(false);
    expect(d.model).toEqual({ provider: 'scripted', model: null, base_url_host: null, real: false });
    expect(d.aggregates.assertions.find((a) => a.label === 'final_state completed')?.pass).toBeGreaterThan(10);
    expect(d.aggregates.evaluators.map((e) => e.evaluator)).toEqual(['answer-completeness', 'tone']);
    expect(d.aggregates.latency.histogram?.counts).toHaveLength(10);

    const items = await cases(baseline);
    const twoTurns = items.find((c) => c.case_id === 'refund-two-turns')!;
    expect(twoTurns).toMatchObject({ status: 'passed', run_status: 'completed' });
    // A case's run is an ordinary run: the run view answers it; its session is hidden.
    const run = (await t.call('GET', `/runs/${twoTurns.run_id}`)).body;
    expect(run.output_parts.some((p: any) => p.kind === 'text' && p.text.includes('ORD-12345 is approved'))).toBe(true);
    const hidden = (await t.call('GET', `/sessions/${twoTurns.session_id}`)).body;
    expect(hidden).toMatchObject({ experiment_id: baseline, run_count: 2 });
    // It keeps what the experiment ran: a message to it is refused, and nothing is added.
    const sent = await t.call('POST', `/sessions/${twoTurns.session_id}/runs`, { parts: [{ kind: 'text', text: 'one more' }] });
    expect(sent.status).toBe(409);
    expect(sent.body.detail).toMatchObject({ error: 'experiment_session', experiment_id: baseline });
    expect((await t.call('GET', `/sessions/${twoTurns.session_id}`)).body.run_count).toBe(2);
    const sessions = (await t.call('GET', '/sessions?limit=200')).body.items;
    expect(sessions.map((s: any) => s.session_id)).toEqual([session, studio.session].filter((s) => sessions.some((x: any) => x.session_id === s)));
    expect(sessions.some((s: any) => s.experiment_id)).toBe(false);
    expect((await t.call('GET', '/experiments?dataset=support')).body.items[0].experiment_id).toBe(baseline);
  });

  it('reads and writes a dataset file through the source view save path, with line diagnostics and the conflict answer; no reload', async () => {
    const before = await studioCall('GET', '/api/project');
    const created = await t.call<Dataset>('POST', '/datasets', { name: 'scratch', description: 'made in a test' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'scratch', description: 'made in a test', cases: [], diagnostics: [] });
    expect((await t.call('POST', '/datasets', { name: 'scratch' })).status).toBe(409);

    const file = await studioCall('GET', '/api/project/file?path=evals/scratch.jsonl');
    const content = `${file.body.content}{"id":"hello","input":{"text":"Hello"}}\n{"id":"broken","input":{}}\nnot json\n`;
    const saved = await studioCall('POST', '/api/save', { path: 'evals/scratch.jsonl', content, base_sha256: file.body.sha256 });
    expect(saved.status).toBe(200);
    const d = (await t.call<Dataset>('GET', '/datasets/scratch')).body;
    expect(d.cases.map((c) => c.id)).toEqual(['hello']);
    expect(d.hash).toBe(saved.body.sha256);
    expect(d.diagnostics.map((x) => [x.file, x.line])).toEqual([
      ['evals/scratch.jsonl', 3],
      ['evals/scratch.jsonl', 4],
    ]);
    // Shown beside the manifest's diagnostics, without making the project invalid.
    const project = await studioCall('GET', '/api/project');
    expect(project.body.dataset_diagnostics.map((x: any) => x.line)).toEqual([3, 4]);
    expect(project.body.state).toBe('ready');
    // A write based on the old content is refused.
    const stale = await studioCall('POST', '/api/save', { path: 'evals/scratch.jsonl', content: '', base_sha256: file.body.sha256 });
    expect(stale.status).toBe(409);
    expect(stale.body.detail.error).toBe('file_changed');
    fs.writeFileSync(path.join(dir, 'evals/scratch.jsonl'), `${file.body.content}`);

    // Dataset files are not code: no pending change, the same fingerprint.
    const after = await studioCall('GET', '/api/project');
    expect(after.body.files).toEqual(expect.arrayContaining(['evals/scratch.jsonl', 'evals/support.jsonl']));
    expect(after.body.fingerprint).toBe(before.body.fingerprint);
    expect(after.body.pending_changes).toEqual([]);
    expect((await t.call('GET', '/datasets/nope')).status).toBe(404);
  });

  it('adds a run to a dataset with the conversation before it, and the case passes against its reference', async () => {
    const session = (await t.call('POST', '/sessions', {})).body.session_id;
    const asked = await send(session, 'I want a refund');
    expect(asked.status).toBe('input_required');
    const answered = await send(session, 'It is ORD-12345');
    expect(answered.status).toBe('completed');
    const hash = (await t.call<Dataset>('GET', '/datasets/scratch')).body.hash;
    const added = await t.call('POST', '/datasets/scratch/cases', { run_id: answered.run_id, base_hash: hash, tags: ['from-run'] });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.case).toMatchObject({
      id: 'it-is-ord-12345',
      tags: ['from-run'],
      history: [{ text: 'I want a refund' }],
      input: { text: 'It is ORD-12345' },
      expected: { output: { status: 'completed' }, assertions: [{ type: 'matches_reference' }] },
    });
    // The same base hash again: the file changed since.
    const stale = await t.call('POST', '/datasets/scratch/cases', { run_id: asked.run_id, base_hash: hash });
    expect(stale.status).toBe(409);
    expect(stale.body.detail.error).toBe('file_changed');
    expect((await t.call('POST', '/datasets/scratch/cases', { run_id: answered.run_id, case_id: 'it-is-ord-12345' })).status).toBe(409);

    const id = await start({ dataset: 'scratch', tags: ['from-run'] });
    const d = await finished(id);
    expect(d.counts).toMatchObject({ total: 1, passed: 1 });
    expect((await cases(id))[0]!.assertions).toEqual([expect.objectContaining({ type: 'matches_reference', status: 'pass' })]);
  });

  it('repeats cases and reports each case pass rate; a failing assertion says why', async () => {
    writeDataset('mixed', [
      { id: 'ok', tags: ['a'], input: { text: 'Where is my order ORD-23456?' }, expected: { assertions: [{ type: 'text_contains', value: 'PostNord' }] } },
      {
        id: 'bad',
        tags: ['b'],
        input: { text: 'Where is my order ORD-23456?' },
        expected: {
          assertions: [
            { type: 'text_contains', value: 'DHL Express' },
            { type: 'llm_judge', rubric: 'polite' },
          ],
        },
      },
    ]);
    const id = await start({ dataset: 'mixed', repeat: 3, concurrency: 3 });
    // Progress as server-sent events: the stream ends with the final summary.
    const stream = await fetch(`${t.api}/experiments/${id}/events`);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const text = await stream.text();
    expect(text).toMatch(/^event: progress\ndata: /);
    const last = text.trim().split('\n\n').pop()!;
    expect(last.startsWith('event: end\ndata: ')).toBe(true);
    expect(JSON.parse(last.slice('event: end\ndata: '.length)).counts).toMatchObject({ total: 6, passed: 3, failed: 3 });
    const d = await finished(id);
    expect(d.counts).toMatchObject({ total: 6, passed: 3, failed: 3 });
    expect(d.aggregates.cases).toEqual([
      { case_id: 'ok', runs: 3, passed: 3, pass_rate: 1 },
      { case_id: 'bad', runs: 3, passed: 0, pass_rate: 0 },
    ]);
    const failures = await cases(id, '?filter=failures');
    expect(failures.map((c) => [c.case_id, c.repeat])).toEqual([
      ['bad', 0],
      ['bad', 1],
      ['bad', 2],
    ]);
    expect(failures[0]!.assertions[0]).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('expected the answer to contain "DHL Express", got "Order ORD-23456 is shipped'),
    });
    expect(failures[0]!.assertions[1]).toMatchObject({ type: 'llm_judge', status: 'skipped', message: expect.stringContaining('no real model') });
    expect((await cases(id, '?tag=a')).every((c) => c.case_id === 'ok')).toBe(true);
    const page = await t.call('GET', `/experiments/${id}/cases?limit=4`);
    expect(page.body.items).toHaveLength(4);
    const rest = await t.call('GET', `/experiments/${id}/cases?limit=4&cursor=${page.body.next_cursor}`);
    expect(rest.body.items).toHaveLength(2);
    expect(rest.body.next_cursor).toBeNull();
  });

  const slowCases = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: `slow-${i}`, input: { text: 'Where is my order ORD-23456?', metadata: { scriptedDelayMs: 150 } } }));

  it('cancels a running experiment: the running run is cancelled, the rest never start', async () => {
    writeDataset('slow', slowCases(8));
    const id = await start({ dataset: 'slow', concurrency: 1 });
    const running = await waitFor(async () => (await cases(id)).find((c) => c.status === 'running' && c.run_id), 60_000, 'a running case');
    const res = await t.call('DELETE', `/experiments/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', reason: 'user_cancelled' });
    expect(res.body.counts.cancelled).toBeGreaterThanOrEqual(7);
    const run = await waitForRun(t, running.run_id!);
    expect(run.status).toBe('cancelled');
    // The next case, admitted ahead and waiting for the slot (D-118), is cancelled too: no run
    // of the experiment is left active.
    const admitted = (await cases(id)).filter((c) => c.run_id);
    expect(admitted.length).toBeGreaterThanOrEqual(2);
    for (const c of admitted) expect(['cancelled', 'completed']).toContain((await waitForRun(t, c.run_id!)).status);
    // Immutable once finished: nothing moves afterwards.
    expect((await detail(id)).counts).toEqual(res.body.counts);
  });

  it('invokes at most `concurrency` cases at a time; the next one waits queued for a slot', async () => {
    writeDataset('slow', slowCases(6));
    const id = await start({ dataset: 'slow', concurrency: 2 });
    const d = await finished(id);
    expect(d.counts).toMatchObject({ total: 6, passed: 6 });
    // Each case's turn in the runtime, from its trace (invoke.start .. invoke.end): the runtime
    // never had more than two of them at once.
    const turns: [number, number][] = [];
    for (const c of await cases(id)) {
      const events = openEvents(t.api, c.run_id!);
      await events.ended;
      const at = (name: string) => {
        const m = events.messages.find((e) => e.data.kind === 'trace' && e.data.name === name);
        return Date.parse(String((m?.data as { data?: { ts?: string } } | undefined)?.data?.ts));
      };
      turns.push([at('invoke.start'), at('invoke.end')]);
    }
    expect(turns.flat().every(Number.isFinite)).toBe(true);
    const edges = turns.flatMap(([s, e]) => [[s, 1] as const, [e, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let now = 0;
    let most = 0;
    for (const [, step] of edges) most = Math.max(most, (now += step));
    expect(most).toBe(2);
  });

  it('stops with code_changed when the project code changes during the experiment', async () => {
    writeDataset('slow', slowCases(30));
    const id = await start({ dataset: 'slow', concurrency: 1 });
    await waitFor(async () => (await cases(id)).some((c) => c.status === 'passed'), 60_000, 'a first passed case');
    const data = path.join(dir, 'src/data.ts');
    fs.appendFileSync(data, '\n// edited during an experiment\n');
    const d = await finished(id, 60_000);
    expect(d).toMatchObject({ status: 'cancelled', reason: 'code_changed', changed_files: ['src/data.ts'] });
    expect(d.counts.cancelled).toBeGreaterThan(0);
    expect(d.counts.passed).toBeLessThan(30);
  });

  it('compares two experiments across a code change: regressed cases, the run pair, the changed file', async () => {
    const skills = path.join(dir, 'src/skills.ts');
    fs.writeFileSync(
      skills,
      fs.readFileSync(skills, 'utf8').replace("return { skill: 'refunds', verdict: 'approved'", "return { skill: 'refunds', verdict: 'unsuitable'"),
    );
    const after = await start({ dataset: 'support' });
    const d = await finished(after);
    expect(d.status).toBe('completed');
    expect(d.counts.failed).toBeGreaterThan(0);
    const cmp = (await t.call<ExperimentCompare>('GET', `/experiments/compare?left=${baseline}&right=${after}`)).body;
    const regressed = cmp.cases.filter((c) => c.verdict === 'regressed').map((c) => c.case_id);
    expect(regressed).toEqual(expect.arrayContaining(['refund-approved', 'ticket-refund', 'refund-two-turns']));
    expect(cmp.cases.find((c) => c.case_id === 'status-shipped')?.verdict).toBe('unchanged');
    expect(cmp.changed_files).toEqual(expect.arrayContaining([{ path: 'src/skills.ts', change: 'modified' }]));
    expect(cmp.same_code).toBe(false);
    const pair = cmp.cases.find((c) => c.case_id === 'refund-approved')!.run_compare!;
    const runCompare = await t.call('GET', `/compare?left=${pair.left}&right=${pair.right}`);
    expect(runCompare.status).toBe(200);

    // A finished experiment is deleted with its sessions and runs.
    expect((await t.call('DELETE', `/experiments/${after}`)).status).toBe(204);
    expect((await t.call('GET', `/experiments/${after}`)).status).toBe(404);
    expect((await t.call('GET', `/runs/${pair.right}`)).status).toBe(404);
  });

  it('answers bad requests with the documented errors', async () => {
    expect((await t.call('POST', '/experiments', { dataset: 'nope' })).status).toBe(404);
    expect((await t.call('POST', '/experiments', { dataset: 'support', repeat: 21 })).status).toBe(400);
    expect((await t.call('POST', '/experiments', { dataset: 'support', cases: ['no-such-case'] })).body.detail).toMatchObject({
      error: 'not_found',
      cases: ['no-such-case'],
    });
    expect((await t.call('GET', '/experiments/exp_nope')).status).toBe(404);
    expect((await t.call('GET', '/experiments?cursor=zzz')).status).toBe(400);
    expect((await t.call('POST', '/datasets', { name: '../x' })).status).toBe(400);
  });
});
