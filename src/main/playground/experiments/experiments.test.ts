// The pure parts of experiments: aggregates, the compare's verdicts, the CI reports and the
// judge's reply parsing.
import { describe, expect, it } from 'vitest';
import type { ExperimentCase, ExperimentDetail } from '../../../shared/experiments.ts';
import { aggregates, histogram, quantile } from './aggregates.ts';
import { changedCodeFiles, compareExperiments, type CompareSide } from './compare.ts';
import { parseVerdict, modelSettings } from './judge.ts';
import { junitXml, summaryMarkdown } from './reports.ts';
import type { CaseRecord } from './store.ts';

const kase = (case_id: string, status: ExperimentCase['status'], extra: Partial<CaseRecord> = {}): CaseRecord => ({
  seq: 0,
  case_id,
  repeat: 0,
  description: null,
  tags: [],
  input_preview: case_id,
  status,
  run_id: `run_${case_id}`,
  session_id: null,
  run_status: 'completed',
  run_reason: null,
  error_code: null,
  duration_ms: 100,
  assertions: [],
  scores: [],
  message: null,
  ...extra,
});

describe('aggregates', () => {
  it('counts assertions by label, summarises scores and latency, and rates each case', () => {
    const fail = { type: 'text_contains', label: 'text_contains "x"', status: 'fail' as const, message: 'no x' };
    const pass = { ...fail, status: 'pass' as const, message: 'x' };
    const a = aggregates([
      kase('a', 'passed', { assertions: [pass], scores: [{ evaluator: 'tone', score: 1 }], duration_ms: 100 }),
      kase('a', 'failed', { assertions: [fail], scores: [{ evaluator: 'tone', score: 0.5 }], duration_ms: 300 }),
      kase('b', 'cancelled', { duration_ms: null }),
    ]);
    expect(a.assertions).toEqual([{ label: 'text_contains "x"', type: 'text_contains', pass: 1, fail: 1, skipped: 0, error: 0 }]);
    expect(a.evaluators[0]).toMatchObject({ evaluator: 'tone', count: 2, mean: 0.75, min: 0.5, max: 1, p50: 0.5 });
    expect(a.latency).toMatchObject({ count: 2, p50: 100, p95: 300, max: 300 });
    expect(a.cases).toEqual([
      { case_id: 'a', runs: 2, passed: 1, pass_rate: 0.5 },
      { case_id: 'b', runs: 1, passed: 0, pass_rate: null },
    ]);
  });

  it('bins values into ten equal bins, the max in the last; quantiles by nearest rank', () => {
    expect(histogram([0, 0.05, 0.5, 1])).toEqual({ min: 0, max: 1, counts: [2, 0, 0, 0, 0, 1, 0, 0, 0, 1] });
    expect(histogram([3, 3])!.counts[0]).toBe(2);
    expect(histogram([])).toBeNull();
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(quantile([], 0.5)).toBeNull();
  });
});

const summary = (id: string, fingerprint: string) =>
  ({ experiment_id: id, dataset: 'd', dataset_hash: 'h', code_fingerprint: fingerprint, repeat: 1 }) as unknown as ExperimentDetail;
const side = (id: string, files: Record<string, string>, cases: CaseRecord[]): CompareSide => ({ summary: summary(id, id), code_files: files, cases });

describe('compare', () => {
  it('pairs cases by id: pass rate first, then evaluator scores; new and removed', () => {
    const cmp = compareExperiments(
      side('L', { 'a.ts': '1', 'b.ts': '1' }, [
        kase('up', 'failed'),
        kase('down', 'passed'),
        kase('same', 'passed', { scores: [{ evaluator: 'tone', score: 1 }] }),
        kase('gone', 'passed'),
      ]),
      side('R', { 'a.ts': '2', 'c.ts': '1' }, [
        kase('up', 'passed'),
        kase('down', 'failed'),
        kase('same', 'passed', { scores: [{ evaluator: 'tone', score: 0.6 }] }),
        kase('fresh', 'passed'),
      ]),
    );
    expect(Object.fromEntries(cmp.cases.map((c) => [c.case_id, c.verdict]))).toEqual({
      up: 'improved',
      down: 'regressed',
      same: 'regressed',
      gone: 'removed',
      fresh: 'new',
    });
    expect(cmp.counts).toEqual({ improved: 1, regressed: 2, unchanged: 0, new: 1, removed: 1 });
    expect(cmp.cases.find((c) => c.case_id === 'same')!.score_deltas[0]!.delta).toBeCloseTo(-0.4);
    expect(cmp.cases.find((c) => c.case_id === 'up')!.run_compare).toEqual({ left: 'run_up', right: 'run_up' });
    expect(cmp.changed_files).toEqual([
      { path: 'a.ts', change: 'modified' },
      { path: 'b.ts', change: 'removed' },
      { path: 'c.ts', change: 'added' },
    ]);
    expect(changedCodeFiles({ x: '1' }, { x: '1' })).toEqual([]);
  });
});

describe('reports', () => {
  it('writes a testsuite per dataset and a testcase per case x repeat, failures with their messages', () => {
    const e = {
      ...summary('E', 'f'),
      dataset: 'sup<port>',
      dataset_hash: 'abcdef',
      repeat: 2,
      status: 'completed',
      reason: null,
      changed_files: [],
      created_at: 't',
      started_at: 't',
      counts: { total: 2, passed: 1, failed: 1, error: 0, cancelled: 0, pending: 0, running: 0 },
      pass_rate: 0.5,
      model: { provider: 'scripted', model: null, base_url_host: null, real: false },
    } as ExperimentDetail;
    const cases = [
      kase('a', 'passed'),
      {
        ...kase('a', 'failed', { assertions: [{ type: 'text_contains', label: 'text_contains "x"', status: 'fail', message: 'expected "x" & \u0001more' }] }),
        repeat: 1,
      },
    ];
    const xml = junitXml([{ experiment: e, cases, compare: null }]);
    expect(xml).toContain('<testsuite name="sup&lt;port&gt;" tests="2" failures="1" errors="0"');
    expect(xml).toContain('name="a #2"');
    expect(xml).toContain('<failure message="text_contains &quot;x&quot;: expected &quot;x&quot; &amp; more">');
    expect(summaryMarkdown([{ experiment: e, cases, compare: null }])).toContain('| a #2 | failed | text_contains "x": expected "x" & \u0001more |');
  });
});

describe('judge', () => {
  it('reads the score and reason of a reply, and refuses what is not one', () => {
    expect(parseVerdict('Sure! {"score": 0.8, "reason": "polite"}')).toEqual({ score: 0.8, reason: 'polite' });
    expect(() => parseVerdict('great answer')).toThrow(/did not answer JSON/);
    expect(() => parseVerdict('{"score": 7}')).toThrow(/from 0 to 1/);
  });

  it('records the model without its key; the scripted model is not real', () => {
    expect(modelSettings({ baseUrl: null, apiKey: null, model: null })).toEqual({ provider: 'scripted', model: null, base_url_host: null, real: false });
    expect(modelSettings({ baseUrl: 'http://127.0.0.1:9999/v1', apiKey: 'sk-secret', model: 'm' })).toEqual({
      provider: 'openai-compatible',
      model: 'm',
      base_url_host: '127.0.0.1:9999',
      real: true,
    });
  });
});
