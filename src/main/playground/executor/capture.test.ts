import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EventBus } from '../events/bus.ts';
import { EventLog } from '../events/log.ts';
import { toDetail } from '../store/store.ts';
import { insertTestRun, openTestStore } from '../store/test-support.ts';
import { RESERVED_METADATA_KEY, TraceCapture, scoreFrom } from './capture.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup() {
  const { store, sessionId } = openTestStore('pg-capture-', dirs);
  const runId = insertTestRun(store, sessionId, { status: 'running' });
  const log = new EventLog(store, new EventBus());
  return { store, log, runId, capture: new TraceCapture(store, log) };
}

describe('trace capture (spec 4.3 rule 8)', () => {
  it('keeps only the optional score keys that are present (spec 2.6)', () => {
    expect(scoreFrom({ evaluator: 'e', score: 0.5 })).toEqual({ evaluator: 'e', score: 0.5 });
    expect(scoreFrom({ evaluator: 'e', score: null, reason: 'r', node: 'n', duration_ms: 3, ts: 'x', task_id: 't' })).toEqual({
      evaluator: 'e',
      score: null,
      reason: 'r',
      node: 'n',
      duration_ms: 3,
    });
    expect(scoreFrom({ score: 1 })).toBeNull();
  });

  it('appends posted events as trace events, without the reserved key, and stores scores', () => {
    const { store, log, runId, capture } = setup();
    const token = capture.open(runId);
    const accepted = capture.accept(token, [
      { name: 'invoke.start', ts: 't0', [RESERVED_METADATA_KEY]: { capture_token: token } },
      { name: 'evaluation.result', evaluator: 'tone', score: 0.9 },
    ]);
    expect(accepted).toBe(true);
    const trace = log.read(runId, 0, 10, 10).map((r) => JSON.parse(r.body));
    expect(trace).toMatchObject([
      { kind: 'trace', name: 'invoke.start', data: { ts: 't0' } },
      { kind: 'trace', name: 'evaluation.result', data: { evaluator: 'tone', score: 0.9 } },
    ]);
    expect(trace[0].data).not.toHaveProperty(RESERVED_METADATA_KEY);
    // The scores so far are written with the post's events, in the log's next batch.
    log.flush();
    expect(store.readEvents(runId, 0, 10, 10)).toHaveLength(2);
    expect(toDetail(store.getRun(runId)!).scores).toEqual([{ evaluator: 'tone', score: 0.9 }]);
    log.close();
  });

  it('refuses a token it never issued and one whose run ended', () => {
    const { runId, capture, log } = setup();
    expect(capture.accept('nope', [{ name: 'x' }])).toBe(false);
    const token = capture.open(runId);
    capture.accept(token, [{ name: 'evaluation.result', evaluator: 'e', score: 1 }]);
    expect(capture.close(token).scores).toEqual([{ evaluator: 'e', score: 1 }]);
    expect(capture.accept(token, [{ name: 'x' }])).toBe(false);
    expect(capture.close(null)).toEqual({ scores: [], open: [] });
    log.close();
  });

  it('answers the spans still open when the token closes, so the run end can close them', () => {
    const { runId, capture, log } = setup();
    const token = capture.open(runId);
    capture.accept(token, [
      { name: 'span.start', ts: '2026-01-01T00:00:00.000Z', span_id: 'a', node: 'classify', kind: 'node', step: 1 },
      { name: 'span.end', span_id: 'a', status: 'completed', duration_ms: 1 },
      { name: 'span.start', ts: '2026-01-01T00:00:00.002Z', span_id: 'b', node: 'respond', kind: 'node', step: 2 },
    ]);
    const { open } = capture.close(token);
    expect(open).toEqual([{ ts: '2026-01-01T00:00:00.002Z', span_id: 'b', node: 'respond', kind: 'node', step: 2 }]);
    log.close();
  });
});
