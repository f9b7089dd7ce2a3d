// Bundles with datasets and experiments over real HTTP (docs/playground-api.md, "POST
// /bundles/export" and "POST /bundles/import"; docs/evaluation.md, "Sharing"): an experiment
// and its dataset exported from one studio and imported into a fresh studio on a copy of the
// example: the experiment, its cases and their runs under new ids, the dataset file written;
// a dataset whose name is taken by a different file arrives under a free name; a malformed
// experiments key is refused whole with its path; the dry run counts; a bundle without the
// new keys imports as before.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bundle, ImportPlan, ImportResult } from '../../src/shared/bundle.ts';
import type { ExperimentCase, ExperimentDetail } from '../../src/shared/experiments.ts';
import type { RunDetail, Session } from '../../src/shared/playground.ts';
import { copyExample, openEditableStudio, startTestStudio, waitFor, type EditableStudio, type TestStudio } from './helpers/playground-studio.ts';

const MINI = [
  { dataset: { description: 'Two cases for sharing' } },
  { id: 'order-status', input: { text: 'Where is my order ORD-23456?' }, expected: { assertions: [{ type: 'final_state', state: 'completed' }] } },
  {
    id: 'never-passes',
    tags: ['broken'],
    history: [{ text: 'Hello' }],
    input: { text: 'I want a refund for order ORD-12345' },
    expected: { assertions: [{ type: 'text_contains', value: 'a sentence the agent never says' }] },
  },
]
  .map((l) => JSON.stringify(l))
  .join('\n')
  .concat('\n');

describe('bundles with datasets and experiments', () => {
  let a: EditableStudio;
  let b: TestStudio;
  let bDir: string;
  let experiment: string;
  let text: string;
  const delay = process.env.SCRIPTED_DELAY_MS;

  const exportText = async (t: TestStudio, body: unknown) => {
    const res = await fetch(`${t.api}/bundles/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };
  const miniFile = (dir: string, name = 'mini') => path.join(dir, 'evals', `${name}.jsonl`);
  const experimentCount = async (t: TestStudio) => (await t.call('GET', '/experiments')).body.items.length as number;

  beforeAll(async () => {
    process.env.SCRIPTED_DELAY_MS = '0';
    a = await openEditableStudio('bundle-evals-a');
    fs.writeFileSync(miniFile(a.dir), MINI);
    const started = await a.t.call('POST', '/experiments', { dataset: 'mini', concurrency: 2 });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    experiment = started.body.experiment_id;
    await waitFor(async () => (await a.t.call<ExperimentDetail>('GET', `/experiments/${experiment}`)).body.status !== 'running', 120_000, 'the experiment');
    bDir = copyExample('bundle-evals-b');
    b = await startTestStudio({ projectDir: bDir, runtimeCommand: false });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (bDir) fs.rmSync(bDir, { recursive: true, force: true });
    if (delay === undefined) delete process.env.SCRIPTED_DELAY_MS;
    else process.env.SCRIPTED_DELAY_MS = delay;
  });

  it('exports an experiment with its cases, hidden sessions, runs and its dataset, byte-identical twice', async () => {
    const one = await exportText(a.t, { experiment_ids: [experiment], datasets: ['mini'] });
    expect(one.status).toBe(200);
    expect((await exportText(a.t, { experiment_ids: [experiment], datasets: ['mini'] })).text).toBe(one.text);
    text = one.text;
    const bundle = JSON.parse(text) as Bundle;
    expect(bundle.format).toBe('svc.playground.bundle/1');
    expect(bundle.datasets).toEqual([{ name: 'mini', text: MINI, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const [e] = bundle.experiments!;
    expect(e).toMatchObject({ experiment_id: experiment, dataset: 'mini', status: 'completed' });
    expect(e.cases.map((c) => [c.case_id, c.status])).toEqual([
      ['order-status', 'passed'],
      ['never-passes', 'failed'],
    ]);
    // Each case's hidden session with every run (the history turn too) is in the bundle.
    expect(bundle.sessions.map((s) => s.session_id).sort()).toEqual([...e.session_ids].sort());
    expect(bundle.runs).toHaveLength(3);
    for (const c of e.cases) expect(bundle.runs.find((r) => r.run_id === c.run_id)?.session_id).toBe(c.session_id);
    expect(new Set(bundle.events.map((ev) => ev.run_id)).size).toBe(3);

    const missing = await a.t.call('POST', '/bundles/export', { experiment_ids: ['exp_nope'], datasets: ['nope'] });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatchObject({ error: 'not_found', experiment_ids: ['exp_nope'], datasets: ['nope'] });
  });

  it('refuses a bundle whose experiments key is malformed, whole, with the paths, writing nothing', async () => {
    // The studio keeps its project's files as blobs from the start (a run's code); none more.
    const blobs = () => fs.readdirSync(path.join(b.dataDir, 'blobs')).filter((f) => !f.endsWith('.tmp'));
    const before = blobs();
    const good = JSON.parse(text) as Bundle;
    const damages: [string, (x: any) => void, string][] = [
      ['bad case status', (x) => (x.experiments[0].cases[0].status = 'sleeping'), '/experiments/0/cases/0/status'],
      ['case run not in the bundle', (x) => (x.experiments[0].cases[1].run_id = 'run_gone'), '/experiments/0/cases/1/run_id'],
      ['hidden session not in the bundle', (x) => (x.experiments[0].session_ids[0] = 'ses_gone'), '/experiments/0/session_ids/0'],
      ['not an array', (x) => (x.experiments = { nope: true }), '/experiments'],
      ['dataset text changed', (x) => (x.datasets[0].text += '\n'), '/datasets/0/hash'],
    ];
    for (const [name, damage, where] of damages) {
      const bad = JSON.parse(JSON.stringify(good));
      damage(bad);
      const res = await b.call('POST', '/bundles/import', { bundle: bad });
      expect(res.status, name).toBe(400);
      expect(res.body.detail.error, name).toBe('invalid_bundle');
      expect(
        res.body.detail.problems.map((p: { path: string }) => p.path),
        name,
      ).toContain(where);
    }
    expect(fs.existsSync(miniFile(bDir))).toBe(false);
    expect(await experimentCount(b)).toBe(0);
    expect(blobs()).toEqual(before);
  });

  it('a dry run counts the experiments, cases and datasets and writes nothing', async () => {
    const plan = await b.call<ImportPlan>('POST', '/bundles/import?dry_run=true', text);
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({
      dry_run: true,
      create: { sessions: 2, runs: 3, experiments: 1, experiment_cases: 2 },
      cancelled_experiments: 0,
      datasets: [{ name: 'mini', action: 'create', as: 'mini', file: 'evals/mini.jsonl' }],
    });
    expect(fs.existsSync(miniFile(bDir))).toBe(false);
    expect(await experimentCount(b)).toBe(0);
  });

  it('imports the experiment under a new id, finished and marked imported, its cases on the imported runs, and the dataset file', async () => {
    const res = await b.call<ImportResult>('POST', '/bundles/import', text);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { mapping } = res.body;
    const id = mapping.experiments[experiment];
    expect(id).toMatch(/^exp_/);
    expect(id).not.toBe(experiment);
    expect(mapping.datasets).toEqual({ mini: 'mini' });
    expect(fs.readFileSync(miniFile(bDir), 'utf8')).toBe(MINI);
    expect((await b.call('GET', '/datasets/mini')).body.cases).toHaveLength(2);

    const original = (await a.t.call<ExperimentDetail>('GET', `/experiments/${experiment}`)).body;
    const got = (await b.call<ExperimentDetail>('GET', `/experiments/${id}`)).body;
    expect(got).toMatchObject({
      status: 'completed',
      dataset: 'mini',
      dataset_hash: original.dataset_hash,
      code_fingerprint: original.code_fingerprint,
      counts: original.counts,
      pass_rate: 0.5,
      imported: { from_experiment_id: experiment, project: 'support-desk', at: expect.any(String) },
    });
    expect(original.imported).toBeNull();
    const before = (await a.t.call<{ items: ExperimentCase[] }>('GET', `/experiments/${experiment}/cases`)).body.items;
    const cases = (await b.call<{ items: ExperimentCase[] }>('GET', `/experiments/${id}/cases?filter=failures`)).body.items;
    expect(cases.map((c) => c.case_id)).toEqual(['never-passes']);
    const failing = cases[0];
    const was = before.find((c) => c.case_id === 'never-passes')!;
    expect(failing).toMatchObject({ run_id: mapping.runs[was.run_id!], session_id: mapping.sessions[was.session_id!], assertions: was.assertions });
    // The teammate opens the failing case's run: it is there, on the case's hidden session.
    const run = (await b.call<RunDetail>('GET', `/runs/${failing.run_id}`)).body;
    expect(run).toMatchObject({ session_id: failing.session_id, status: 'completed', imported: { from_run_id: was.run_id } });
    const session = (await b.call<Session & { experiment_id: string }>('GET', `/sessions/${failing.session_id}`)).body;
    expect(session.experiment_id).toBe(id);
    expect((await b.call('GET', '/sessions')).body.items).toEqual([]);
    // It is finished: deleting it removes it with its hidden sessions and their runs.
    expect((await b.call('DELETE', `/experiments/${id}`)).status).toBe(204);
    expect((await b.call('GET', `/experiments/${id}`)).status).toBe(404);
    expect((await b.call('GET', `/runs/${failing.run_id}`)).status).toBe(404);
  });

  it('never overwrites a different dataset file of the same name: imports it as <name>-imported, once', async () => {
    const authors = MINI.replace('Two cases for sharing', 'My own edits');
    fs.writeFileSync(miniFile(bDir), authors);
    const plan = await b.call<ImportPlan>('POST', '/bundles/import?dry_run=true', text);
    expect(plan.body.datasets).toEqual([{ name: 'mini', action: 'renamed', as: 'mini-imported', file: 'evals/mini-imported.jsonl' }]);
    const res = await b.call<ImportResult>('POST', '/bundles/import', text);
    expect(res.status).toBe(201);
    expect(res.body.mapping.datasets).toEqual({ mini: 'mini-imported' });
    expect(fs.readFileSync(miniFile(bDir), 'utf8')).toBe(authors);
    expect(fs.readFileSync(miniFile(bDir, 'mini-imported'), 'utf8')).toBe(MINI);
    // The experiment names the dataset it arrived with.
    const got = (await b.call<ExperimentDetail>('GET', `/experiments/${res.body.mapping.experiments[experiment]}`)).body;
    expect(got).toMatchObject({ dataset: 'mini-imported', dataset_file: 'evals/mini-imported.jsonl' });
    // Importing it again finds the same copy: nothing new written.
    const again = await b.call<ImportResult>('POST', '/bundles/import', text);
    expect(again.body.datasets).toEqual([{ name: 'mini', action: 'identical', as: 'mini-imported', file: 'evals/mini-imported.jsonl' }]);
    expect(fs.readdirSync(path.join(bDir, 'evals')).sort()).toEqual(['mini-imported.jsonl', 'mini.jsonl', 'support.jsonl']);
    // Once that copy is edited too, the next import takes the next free name.
    fs.appendFileSync(miniFile(bDir, 'mini-imported'), '\n');
    const third = await b.call<ImportResult>('POST', '/bundles/import', text);
    expect(third.body.mapping.datasets).toEqual({ mini: 'mini-imported-2' });
    expect(fs.readFileSync(miniFile(bDir, 'mini-imported-2'), 'utf8')).toBe(MINI);
  });

  it('an experiment exported while running arrives cancelled (exported_while_running), its running case cancelled on an interrupted run', async () => {
    const live = JSON.parse(text) as Bundle;
    const e = live.experiments![0];
    e.status = 'running';
    e.ended_at = null;
    const c = e.cases[1];
    Object.assign(c, { status: 'running', run_status: 'running', assertions: [] });
    Object.assign(
      live.runs.find((r) => r.run_id === c.run_id)!,
      { status: 'running', ended_at: null },
    );
    const plan = await b.call<ImportPlan>('POST', '/bundles/import?dry_run=true', { bundle: live });
    expect(plan.body).toMatchObject({ cancelled_experiments: 1, interrupted_runs: 1 });
    const res = await b.call<ImportResult>('POST', '/bundles/import', { bundle: live });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.mapping.experiments[experiment];
    const got = (await b.call<ExperimentDetail>('GET', `/experiments/${id}`)).body;
    expect(got).toMatchObject({ status: 'cancelled', reason: 'exported_while_running', ended_at: expect.any(String) });
    const cases = (await b.call<{ items: ExperimentCase[] }>('GET', `/experiments/${id}/cases`)).body.items;
    expect(cases[1]).toMatchObject({ status: 'cancelled', run_status: 'interrupted', run_reason: 'exported_while_active' });
    expect((await b.call<RunDetail>('GET', `/runs/${cases[1].run_id}`)).body).toMatchObject({ status: 'interrupted', reason: 'exported_while_active' });
  });

  it('a database newer than this build refuses the import (409) before any dataset file is written', async () => {
    const dir = copyExample('bundle-evals-c');
    const c = await startTestStudio({ projectDir: dir, runtimeCommand: false });
    try {
      const db = new Database(path.join(c.dataDir, 'playground.sqlite'));
      db.prepare('INSERT INTO schema_version (version, name, sha256, applied_at) VALUES (?, ?, ?, ?)').run(
        999,
        'future',
        'x'.repeat(64),
        new Date().toISOString(),
      );
      db.close();
      const res = await c.call('POST', '/bundles/import', text);
      expect(res.status).toBe(409);
      expect(fs.existsSync(miniFile(dir))).toBe(false);
    } finally {
      await c.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bundle without the new keys exports and imports exactly as before', async () => {
    const session = (await a.t.call('POST', '/sessions', { title: 'plain' })).body.session_id;
    const sent = await a.t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: 'Where is my order ORD-23456?' }] });
    await waitFor(async () => ['completed', 'failed'].includes((await a.t.call('GET', `/runs/${sent.body.run_id}`)).body.status), 30_000, 'the run');
    const plain = await exportText(a.t, { session_ids: [session] });
    const bundle = JSON.parse(plain.text);
    expect(Object.keys(bundle)).toEqual(['format', 'sessions', 'runs', 'events', 'blobs', 'source', 'input_contracts']);
    const res = await b.call<ImportResult>('POST', '/bundles/import', plain.text);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ create: { sessions: 1, runs: 1, experiments: 0, experiment_cases: 0 }, datasets: [] });
    expect(res.body.mapping).toMatchObject({ experiments: {}, datasets: {} });
    expect((await b.call('GET', '/sessions')).body.items.map((s: Session) => s.title)).toEqual(['plain']);
  });
});
