import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPARE_OPTIONS, type CompareOptions } from '../../../shared/compare.ts';
import { diffJson, leaves, MAX_CHANGES } from './json-diff.ts';

const opts = (o: Partial<CompareOptions> = {}): CompareOptions => ({ ...DEFAULT_COMPARE_OPTIONS, ...o });

describe('diffJson', () => {
  it('reports nothing for equal values whatever the key order', () => {
    expect(diffJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }, opts())).toEqual({ changes: [], ignored: 0, truncated: false });
  });

  it('names nested adds, removes and replaces by RFC 6901 pointer, escaping ~ and /', () => {
    const d = diffJson({ user: { name: 'Ann', 'a/b': 1, 'x~y': true } }, { user: { name: 'Bob', 'x~y': true, age: 3 } }, opts());
    expect(d.changes).toEqual([
      { op: 'replace', path: '/user/name', old: 'Ann', new: 'Bob' },
      { op: 'remove', path: '/user/a~1b', old: 1 },
      { op: 'add', path: '/user/age', new: 3 },
    ]);
  });

  it('treats keys named like Object.prototype members as data', () => {
    expect(diffJson({}, { toString: 1, constructor: 'x' }, opts()).changes).toEqual([
      { op: 'add', path: '/toString', new: 1 },
      { op: 'add', path: '/constructor', new: 'x' },
    ]);
    expect(diffJson({ valueOf: 2 }, {}, opts()).changes).toEqual([{ op: 'remove', path: '/valueOf', old: 2 }]);
  });

  it('replaces on a change of type, including null, arrays and objects', () => {
    const d = diffJson({ a: 1, b: null, c: [1], d: { x: 1 } }, { a: '1', b: {}, c: { 0: 1 }, d: [1] }, opts());
    expect(d.changes.map((c) => [c.op, c.path])).toEqual([
      ['replace', '/a'],
      ['replace', '/b'],
      ['replace', '/c'],
      ['replace', '/d'],
    ]);
  });

  it('compares arrays by position: changed items in place, extra items removed or added', () => {
    expect(diffJson({ l: [1, 2, 3] }, { l: [1, 5] }, opts()).changes).toEqual([
      { op: 'replace', path: '/l/1', old: 2, new: 5 },
      { op: 'remove', path: '/l/2', old: 3 },
    ]);
    expect(diffJson([{ id: 1, v: 'a' }], [{ id: 1, v: 'b' }, { id: 2 }], opts()).changes).toEqual([
      { op: 'replace', path: '/0/v', old: 'a', new: 'b' },
      { op: 'add', path: '/1', new: { id: 2 } },
    ]);
  });

  it('compares arrays as multisets when asked: order does not count, duplicates do', () => {
    expect(diffJson({ tags: ['a', 'b', 'c'] }, { tags: ['c', 'a', 'b'] }, opts({ arrays: 'set' })).changes).toEqual([]);
    expect(diffJson({ tags: ['a', 'a', 'b'] }, { tags: ['b', 'a'] }, opts({ arrays: 'set' })).changes).toEqual([{ op: 'remove', path: '/tags/1', old: 'a' }]);
    // Items left over on both sides pair in order and are diffed inside.
    expect(
      diffJson(
        [
          { id: 1, n: 1 },
          { id: 2, n: 2 },
        ],
        [
          { id: 2, n: 2 },
          { id: 1, n: 9 },
        ],
        opts({ arrays: 'set' }),
      ).changes,
    ).toEqual([{ op: 'replace', path: '/0/n', old: 1, new: 9 }]);
  });

  it('treats numbers within the tolerance as equal, and only numbers', () => {
    expect(diffJson({ p: 0.5, q: 10 }, { p: 0.504, q: 10.02 }, opts({ tolerance: 0.01 })).changes).toEqual([
      { op: 'replace', path: '/q', old: 10, new: 10.02 },
    ]);
    expect(diffJson({ p: '0.5' }, { p: '0.504' }, opts({ tolerance: 1 })).changes).toHaveLength(1);
  });

  it('leaves out ignored paths by glob and counts what they hid', () => {
    const left = { id: 'a1', at: '2026-01-01', items: [{ id: 1, ts: 5, v: 'x' }], meta: { trace: { id: 9 } } };
    const right = { id: 'b2', at: '2026-01-02', items: [{ id: 2, ts: 6, v: 'y' }], meta: { trace: { id: 8 } } };
    const d = diffJson(left, right, opts({ ignore: ['**/id', '/at', 'items/*/ts'] }));
    expect(d.changes).toEqual([{ op: 'replace', path: '/items/0/v', old: 'x', new: 'y' }]);
    expect(d.ignored).toBe(5);
    // An ignored key that exists on one side only is ignored too.
    expect(diffJson({ a: 1 }, { a: 1, requestId: 'r' }, opts({ ignore: ['**/requestId'] }))).toEqual({ changes: [], ignored: 1, truncated: false });
  });

  it('matches set items without their ignored paths', () => {
    const d = diffJson(
      {
        l: [
          { id: 'x', v: 1 },
          { id: 'y', v: 2 },
        ],
      },
      {
        l: [
          { id: 'q', v: 2 },
          { id: 'r', v: 1 },
        ],
      },
      opts({ arrays: 'set', ignore: ['**/id'] }),
    );
    expect(d.changes).toEqual([]);
  });

  it('keeps the first changes of a huge diff and says it was cut', () => {
    const a = Array.from({ length: MAX_CHANGES + 10 }, (_, i) => i);
    const d = diffJson(
      a,
      a.map((x) => x + 1),
      opts(),
    );
    expect(d.changes).toHaveLength(MAX_CHANGES);
    expect(d.truncated).toBe(true);
  });

  it('lists the leaves of a value with their pointers', () => {
    expect(leaves({ a: [1, { b: null }], c: {}, d: [] })).toEqual([
      ['/a/0', 1],
      ['/a/1/b', null],
      ['/c', {}],
      ['/d', []],
    ]);
  });
});
