// GET /compare (spec 4.3 rule 5) and GET /runs/{id}/stability: loads what each run has
// (stored detail, trace events, streamed text of an active run) and puts the pure
// comparisons together. `left` is the baseline, `right` the candidate.
import type { CompareOptions, RunComparison, RunSide } from '../../../shared/compare.ts';
import { isActive, type RunDetail } from '../../../shared/playground.ts';
import type { RunEnd } from '../../../shared/spans.ts';
import type { PlaygroundStore } from '../store/store.ts';
import { findDivergence, type ForkPair } from './divergence.ts';
import { ignoreFilter } from './json-diff.ts';
import { compareParts } from './parts.ts';
import { compareCode, compareScores } from './scores.ts';

export interface TraceRecord {
  name: string;
  ts: string;
  data: Record<string, unknown>;
}

/** Everything a comparison reads of one run. */
export interface RunMaterial {
  detail: RunDetail;
  traces: TraceRecord[];
  /** Output deltas streamed so far, for an active run; else null. */
  streamed: string | null;
  generation: number | null;
}

const PAGE = 5000;

function* eventsOfKind(store: PlaygroundStore, runId: string, kind: string): Generator<Record<string, unknown>> {
  let after = 0;
  for (;;) {
    const rows = store.readEventObjects(runId, { kind, after, limit: PAGE });
    // A stored body is always JSON; a damaged one (null) is skipped rather than failing the comparison.
    for (const row of rows) if (row.event) yield row.event;
    if (rows.length < PAGE) return;
    after = rows[rows.length - 1].seq;
  }
}

/** How a run ended, for the span fold (null while active). */
function runEnd(d: RunDetail): RunEnd | null {
  if (isActive(d.status)) return null;
  const at = d.ended_at ? Date.parse(d.ended_at) : Number.NaN;
  return { status: d.status, ...(Number.isFinite(at) ? { at } : {}) };
}

/** Reads the run's stored events (the caller flushes the event log's pending batch first). */
export function loadRunMaterial(store: PlaygroundStore, detail: RunDetail): RunMaterial {
  const traces: TraceRecord[] = [];
  let generation: number | null = null;
  for (const e of eventsOfKind(store, detail.run_id, 'trace')) {
    const data = (e.data && typeof e.data === 'object' ? e.data : {}) as Record<string, unknown>;
    if (generation === null && typeof data.generation === 'number') generation = data.generation;
    traces.push({ name: String(e.name), ts: String(e.ts), data });
  }
  let streamed: string | null = null;
  if (isActive(detail.status)) {
    streamed = '';
    for (const e of eventsOfKind(store, detail.run_id, 'output.delta')) streamed += typeof e.text === 'string' ? e.text : '';
  }
  return { detail, traces, streamed, generation };
}

function side(m: RunMaterial, now: number): RunSide {
  const d = m.detail;
  const active = isActive(d.status);
  const started = d.started_at ? Date.parse(d.started_at) : null;
  return {
    run_id: d.run_id,
    session_id: d.session_id,
    status: d.status,
    reason: d.reason,
    origin: d.origin,
    parent_run_id: d.parent_run_id,
    active,
    started_at: d.started_at,
    ended_at: d.ended_at,
    duration_ms: active ? (started !== null ? Math.max(0, now - started) : null) : d.duration_ms,
    duration_final: !active && d.duration_ms !== null,
    code_fingerprint: d.code_fingerprint,
    generation: m.generation,
    replayed_from: d.replay?.from_run_id ?? null,
  };
}

export function compareRuns(left: RunMaterial, right: RunMaterial, options: CompareOptions, now = Date.now()): RunComparison {
  const ignored = ignoreFilter(options.ignore);
  const l = side(left, now);
  const r = side(right, now);
  const input = compareParts({ parts: left.detail.input_parts, streamed: null }, { parts: right.detail.input_parts, streamed: null }, options, ignored);
  const output = compareParts(
    { parts: left.detail.output_parts, streamed: left.streamed },
    { parts: right.detail.output_parts, streamed: right.streamed },
    options,
    ignored,
  );
  const scores = compareScores(left.detail.scores, right.detail.scores, options.tolerance);
  const code = compareCode(
    { fingerprint: left.detail.code_fingerprint, files: left.detail.code_files, generation: left.generation },
    { fingerprint: right.detail.code_fingerprint, files: right.detail.code_files, generation: right.generation },
  );
  return {
    left: l,
    right: r,
    duration_delta_ms: l.duration_ms !== null && r.duration_ms !== null ? r.duration_ms - l.duration_ms : null,
    partial: l.active || r.active,
    options,
    equal: l.status === r.status && output.equal && scores.every((s) => s.status === 'equal'),
    input,
    output,
    scores,
    divergence: findDivergence(
      left.traces,
      right.traces,
      options,
      ignored,
      { left: runEnd(left.detail), right: runEnd(right.detail) },
      forkPair(left.detail, right.detail),
    ),
    code,
    automatic_verdict: null,
  };
}

/** One of the two runs is a fork of the other (its RunDetail.fork names the other). */
function forkPair(left: RunDetail, right: RunDetail): ForkPair | null {
  if (right.fork?.run_id === left.run_id) return { side: 'right', fork: right.fork };
  if (left.fork?.run_id === right.run_id) return { side: 'left', fork: left.fork };
  return null;
}
