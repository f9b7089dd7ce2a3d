import { parsePatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPARE_OPTIONS, type CompareOptions } from '../../../shared/compare.ts';
import type { ScoreEntry, TaggedPart } from '../../../shared/playground.ts';
import { findDivergence } from './divergence.ts';
import { ignoreFilter } from './json-diff.ts';
import { compareParts } from './parts.ts';
import { compareCode, compareScores } from './scores.ts';
import { stabilityOf } from './stability.ts';
import { compareText } from './text-diff.ts';

const opts = (o: Partial<CompareOptions> = {}): CompareOptions => ({ ...DEFAULT_COMPARE_OPTIONS, ...o });
const parts = (list: TaggedPart[]) => ({ parts: list, streamed: null });
const cmp = (l: TaggedPart[], r: TaggedPart[], o = opts()) => compareParts(parts(l), parts(r), o, ignoreFilter(o.ignore));

describe('text parts', () => {
  it('keeps both originals and gives a unified diff that parses back', () => {
    const c = compareText(0, { text: 'one\ntwo\nthree\n', partial: false }, { text: 'one\n2\nthree\nfour\n', partial: false });
    expect(c).toMatchObject({
      status: 'changed',
      left: 'one\ntwo\nthree\n',
      right: 'one\n2\nthree\nfour\n',
      lines_added: 2,
      lines_removed: 1,
      diff_timed_out: false,
    });
    const [patch] = parsePatch(c.unified_diff);
    expect(patch.hunks[0].lines).toEqual([' one', '-two', '+2', ' three', '+four']);
  });

  it('pairs text parts by position and marks one-sided and partial ones', () => {
    const c = cmp(
      [{ kind: 'text', text: 'a' }],
      [
        { kind: 'text', text: 'a' },
        { kind: 'text', text: 'b', partial: true },
      ],
    );
    expect(c.text.map((t) => [t.status, t.right_partial])).toEqual([
      ['equal', false],
      ['added', true],
    ]);
    expect(c.text[0].unified_diff).toBe('');
    expect(c.equal).toBe(false);
  });

  it('compares what an active run streamed so far', () => {
    const c = compareParts(parts([{ kind: 'text', text: 'Hello world' }]), { parts: [], streamed: 'Hello' }, opts(), ignoreFilter([]));
    expect(c.text[0]).toMatchObject({ status: 'changed', right: 'Hello', right_partial: true });
  });
});

describe('data parts', () => {
  it('matches DataParts by their schema key, whatever their order, and diffs each', () => {
    const c = cmp(
      [
        { kind: 'data', data: { schema: 'a/1', v: 1 } },
        { kind: 'data', data: { schema: 'b/1', items: [1, 2] } },
      ],
      [
        { kind: 'data', data: { schema: 'b/1', items: [1, 3] } },
        { kind: 'data', data: { schema: 'a/1', v: 1 } },
        { kind: 'data', data: { schema: 'c/1' } },
      ],
    );
    expect(c.data.map((d) => [d.key, d.status, d.left_index, d.right_index])).toEqual([
      ['a/1', 'equal', 0, 1],
      ['b/1', 'changed', 1, 0],
      ['c/1', 'added', null, 2],
    ]);
    expect(c.data[1].diff.changes).toEqual([{ op: 'replace', path: '/items/1', old: 2, new: 3 }]);
    expect(c.data[2].right).toEqual({ schema: 'c/1' });
  });

  it('matches DataParts without a schema by their position among those', () => {
    const c = cmp(
      [{ kind: 'data', data: { x: 1 } }],
      [
        { kind: 'data', data: { schema: 's' } },
        { kind: 'data', data: { x: 2 } },
      ],
    );
    expect(c.data.map((d) => [d.key, d.status])).toEqual([
      ['#0', 'changed'],
      ['s', 'added'],
    ]);
  });

  it('applies the ignore globs and tolerance inside DataParts', () => {
    const c = cmp(
      [{ kind: 'data', data: { schema: 's', at: 1, p: 0.5 } }],
      [{ kind: 'data', data: { schema: 's', at: 2, p: 0.51 } }],
      opts({ ignore: ['/at'], tolerance: 0.05 }),
    );
    expect(c.data[0]).toMatchObject({ status: 'equal', diff: { changes: [], ignored: 1 } });
    expect(c.equal).toBe(true);
  });
});

describe('file parts', () => {
  const inline = (name: string, sha256: string, size: number, mime = 'text/plain'): TaggedPart => ({
    kind: 'file',
    source: 'inline',
    name,
    sha256,
    size,
    mime_type: mime,
  });
  it('matches files by name and compares metadata, URI and hash', () => {
    const c = cmp(
      [
        inline('a.txt', 'h1', 3),
        inline('b.txt', 'h2', 4),
        { kind: 'file', source: 'uri', uri: 'https://x/1', availability: 'external', replay: 'by_reference', name: 'u' },
      ],
      [
        inline('b.txt', 'h3', 4, 'text/csv'),
        inline('a.txt', 'h1', 3),
        { kind: 'file', source: 'uri', uri: 'https://x/2', availability: 'external', replay: 'by_reference', name: 'u' },
      ],
    );
    expect(c.files.map((f) => [f.key, f.status, f.same_sha256, f.same_size, f.same_mime_type, f.same_uri])).toEqual([
      ['a.txt', 'equal', true, true, true, null],
      ['b.txt', 'changed', false, true, false, null],
      ['u', 'changed', null, null, true, false],
    ]);
  });
});

describe('scores', () => {
  it('pairs scores by evaluator, gives the delta, and keeps every key including unknown ones', () => {
    const left: ScoreEntry[] = [
      { evaluator: 'tone', score: 0.5, reason: 'ok', duration_ms: 2 },
      { evaluator: 'gone', score: 1 },
    ];
    const right = [
      { evaluator: 'tone', score: 0.75, reason: 'better', duration_ms: 3, custom: { k: 1 } },
      { evaluator: 'new', score: null },
    ] as ScoreEntry[];
    const s = compareScores(left, right, 0);
    expect(s.map((x) => [x.evaluator, x.status, x.left_score, x.right_score, x.delta])).toEqual([
      ['tone', 'changed', 0.5, 0.75, 0.25],
      ['gone', 'removed', 1, null, null],
      ['new', 'added', null, null, null],
    ]);
    expect(s[0].changed_keys.sort()).toEqual(['custom', 'duration_ms', 'reason']);
    expect(s[0].right).toMatchObject({ custom: { k: 1 } });
  });

  it('counts a score within the tolerance, and a duration change alone, as equal', () => {
    const s = compareScores([{ evaluator: 'e', score: 0.8, duration_ms: 1 }], [{ evaluator: 'e', score: 0.81, duration_ms: 9 }], 0.05);
    expect(s[0]).toMatchObject({ status: 'equal', changed_keys: ['duration_ms'] });
    expect(s[0].delta).toBeCloseTo(0.01);
  });

  it('keeps per-node scores of one evaluator apart', () => {
    const s = compareScores(
      [
        { evaluator: 'e', score: 1, node: 'a' },
        { evaluator: 'e', score: 1, node: 'b' },
      ],
      [{ evaluator: 'e', score: 0, node: 'b' }],
      0,
    );
    expect(s.map((x) => [x.node, x.status])).toEqual([
      ['a', 'removed'],
      ['b', 'changed'],
    ]);
  });
});

describe('code', () => {
  it('lists files modified, added and removed between the two runs', () => {
    const c = compareCode(
      { fingerprint: 'f1', files: { 'a.ts': '1', 'b.ts': '2', 'c.ts': '3' }, generation: 1 },
      { fingerprint: 'f2', files: { 'a.ts': '1', 'b.ts': '9', 'd.ts': '4' }, generation: 2 },
    );
    expect(c).toMatchObject({ known: true, same: false });
    expect(c.changed_files).toEqual([
      { path: 'b.ts', change: 'modified' },
      { path: 'c.ts', change: 'removed' },
      { path: 'd.ts', change: 'added' },
    ]);
    expect(compareCode({ fingerprint: null, files: null, generation: 1 }, { fingerprint: 'f', files: {}, generation: 1 })).toMatchObject({
      known: false,
      same: null,
    });
  });
});

// Trace events as the runtime emits them (docs/runtime-traces.md).
let clock = 0;
function span(id: string, node: string, step: number, update: unknown, extra: Record<string, unknown> = {}) {
  const ts = new Date(1_700_000_000_000 + clock++).toISOString();
  return [
    { name: 'span.start', ts, data: { span_id: id, node, step, kind: extra.kind ?? 'node', ...(extra.parent ? { parent_span_id: extra.parent } : {}) } },
    { name: 'span.end', ts, data: { span_id: id, status: extra.status ?? 'completed', duration_ms: 1, ...(update === undefined ? {} : { update }) } },
  ];
}

describe('divergence', () => {
  it('finds the first node, in graph order, whose state update differs, with its paths', () => {
    const left = [...span('1', 'classify', 1, { topic: 'billing' }), ...span('2', 'respond', 2, { answer: 'A', at: 1 })];
    const right = [...span('x', 'classify', 1, { topic: 'billing' }), ...span('y', 'respond', 2, { answer: 'B', at: 2 })];
    const d = findDivergence(left, right, opts(), ignoreFilter([]));
    expect(d.available).toBe(true);
    expect(d.first).toMatchObject({ kind: 'update', node: 'respond', step: 2, left: { span_id: '2' }, right: { span_id: 'y' } });
    expect(d.first!.diff!.changes.map((c) => c.path)).toEqual(['/answer', '/at']);
    expect(d.same).toBe(1);
    // Ignoring the volatile key keeps it in the diff's count, not in the changes.
    const ignoring = findDivergence(left, right, opts({ ignore: ['/at'] }), ignoreFilter(['/at']));
    expect(ignoring.first!.diff!.changes.map((c) => c.path)).toEqual(['/answer']);
  });

  it('reports a different route as nodes that ran in one run only, the first one first', () => {
    const left = [...span('1', 'classify', 1, { topic: 'billing' }), ...span('2', 'billing', 2, { a: 1 })];
    const right = [...span('1', 'classify', 1, { topic: 'tech' }), ...span('2', 'tech', 2, { a: 1 }), ...span('3', 'respond', 3, {})];
    const d = findDivergence(left, right, opts(), ignoreFilter([]));
    expect(d.first).toMatchObject({ kind: 'update', node: 'classify' });
    expect(d.only_left.map((s) => s.node)).toEqual(['billing']);
    expect(d.only_right.map((s) => s.node)).toEqual(['tech', 'respond']);
  });

  it('orders parallel nodes of a superstep by name, not by which started first', () => {
    const left = [...span('1', 'b', 1, { v: 1 }), ...span('2', 'a', 1, { v: 1 })];
    const right = [...span('3', 'a', 1, { v: 2 }), ...span('4', 'b', 1, { v: 2 })];
    expect(findDivergence(left, right, opts(), ignoreFilter([])).first?.node).toBe('a');
  });

  it('tells a failed node from a completed one, and places branches under their node', () => {
    const left = [...span('1', 'fan', 1, { n: 2 }), ...span('1/0', 'fan[0]', 1, { r: 1 }, { kind: 'branch', parent: '1' })];
    const right = [...span('9', 'fan', 1, { n: 2 }), ...span('9/0', 'fan[0]', 1, undefined, { kind: 'branch', parent: '9', status: 'failed' })];
    const d = findDivergence(left, right, opts(), ignoreFilter([]));
    expect(d.first).toMatchObject({ kind: 'status', node: 'fan[0]', path: ['fan', 'fan[0]'], left: { status: 'completed' }, right: { status: 'failed' } });
  });

  it('reads a span a stored run left open as ended with the run, not running', () => {
    const left = [...span('1', 'a', 1, {}), span('2', 'respond', 2, {})[0]];
    const right = [...span('3', 'a', 1, {}), ...span('4', 'respond', 2, undefined, { status: 'cancelled' })];
    const d = findDivergence(left, right, opts(), ignoreFilter([]), { left: { status: 'cancelled' }, right: { status: 'cancelled' } });
    expect(d.first).toBeNull();
    expect(findDivergence(left, right, opts(), ignoreFilter([])).first).toMatchObject({ kind: 'status', left: { status: 'running' } });
  });

  it('lines a fork up with its origin from the forked node: the edit is the divergence there, the nodes before it are the same', () => {
    const origin = [
      ...span('g', 'guardrail', 1, {}),
      ...span('r', 'router', 2, { intents: ['refund', 'order_status'] }),
      ...span('s', 'skills', 3, { results: [1, 2] }),
      ...span('s/0', 'skills[refund]', 3, { r: 1 }, { kind: 'branch', parent: 's' }),
      ...span('s/1', 'skills[order_status]', 3, { r: 2 }, { kind: 'branch', parent: 's' }),
      ...span('p', 'respond', 4, { text: 'both' }),
    ];
    // The fork's run counts its supersteps from its checkpoint.
    const forked = [
      ...span('s2', 'skills', 1, { results: [2] }),
      ...span('s2/0', 'skills[order_status]', 1, { r: 2 }, { kind: 'branch', parent: 's2' }),
      ...span('p2', 'respond', 2, { text: 'one' }),
    ];
    const edit = { node: 'router', patch: [{ op: 'replace' as const, path: '/intents', value: ['order_status'] }] };
    const d = findDivergence(origin, forked, opts(), ignoreFilter([]), undefined, { side: 'right', fork: edit });
    expect(d.first).toMatchObject({ kind: 'update', node: 'router', step: 2, left: { span_id: 'r' }, right: null });
    expect(d.first!.diff!.changes.every((c) => c.path.startsWith('/intents'))).toBe(true);
    expect(d.only_left.map((s) => s.node)).toEqual(['skills[refund]']);
    expect(d.only_right).toEqual([]);
    expect(d.same).toBe(2); // guardrail, and skills[order_status]
    // The other way round, and a re-run (no edit): nothing before the fork's first node differs.
    const back = findDivergence(forked, origin, opts(), ignoreFilter([]), undefined, { side: 'left', fork: edit });
    expect(back.first).toMatchObject({ kind: 'update', node: 'router', left: null, right: { span_id: 'r' } });
    const rerun = findDivergence(origin, forked, opts(), ignoreFilter([]), undefined, { side: 'right', fork: { node: 'router', patch: [] } });
    expect(rerun.first).toMatchObject({ kind: 'update', node: 'skills', step: 3 });
  });

  it('says when spans are missing on a side', () => {
    const d = findDivergence(span('1', 'a', 1, {}), [], opts(), ignoreFilter([]));
    expect(d.available).toBe(false);
    expect(d.only_left).toHaveLength(1);
  });
});

describe('stability over reruns', () => {
  const run = (id: string, text: string, data: Record<string, unknown>, score: number, status = 'completed') => ({
    run_id: id,
    status,
    output_parts: [{ kind: 'text', text } as TaggedPart, { kind: 'data', data } as TaggedPart],
    scores: [{ evaluator: 'tone', score }],
  });

  it('tells the parts that are identical across all reruns from those that vary', () => {
    const r = stabilityOf(
      'a',
      [
        run('a', 'Hi', { schema: 's', v: 1, id: 'x', tags: ['p', 'q'] }, 1),
        run('b', 'Hi', { schema: 's', v: 1, id: 'y', tags: ['q', 'p'] }, 1),
        run('c', 'Hello', { schema: 's', v: 1, id: 'z', tags: ['p', 'q'] }, 0.5),
      ],
      ['d'],
      opts(),
    );
    expect(r.stable).toBe(false);
    expect(r.run_ids).toEqual(['a', 'b', 'c']);
    expect(r.active_run_ids).toEqual(['d']);
    expect(r.text[0].variants).toEqual([
      { value: 'Hi', run_ids: ['a', 'b'] },
      { value: 'Hello', run_ids: ['c'] },
    ]);
    expect(r.data[0].varying.map((v) => v.path).sort()).toEqual(['/id', '/tags/0', '/tags/1']);
    expect(r.data[0].stable_paths).toBe(2);
    expect(r.scores[0]).toMatchObject({ evaluator: 'tone', stable: false, min: 0.5, max: 1 });
    expect(r.status.stable).toBe(true);
  });

  it('is stable under the options: ignored ids, arrays as sets, score tolerance', () => {
    const r = stabilityOf(
      'a',
      [run('a', 'Hi', { schema: 's', id: 'x', tags: ['p', 'q'] }, 1), run('b', 'Hi', { schema: 's', id: 'y', tags: ['q', 'p'] }, 0.95)],
      [],
      opts({ ignore: ['**/id'], arrays: 'set', tolerance: 0.1 }),
    );
    expect(r.stable).toBe(true);
  });
});
