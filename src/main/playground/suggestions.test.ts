import { describe, expect, it } from 'vitest';
import { harvestHistory } from './suggestions.ts';
import type { TaggedPart } from '../../shared/playground.ts';

const run = (created_at: string, ...data: Record<string, unknown>[]) => ({
  created_at,
  input_parts: [{ kind: 'text', text: 'hi' } as TaggedPart, ...data.map((d): TaggedPart => ({ kind: 'data', data: d }))],
});

describe('harvestHistory', () => {
  it('learns each contract field’s values, most used then most recent, counting a run once', () => {
    const history = harvestHistory([
      run('2026-11-03T00:00:00Z', { schema: 's/1', topic: 'refund', tags: ['vip', 'vip'] }),
      run('2026-11-02T00:00:00Z', { schema: 's/1', topic: 'question', n: 3, ok: true }),
      run('2026-11-01T00:00:00Z', { schema: 's/1', topic: 'refund' }, { schema: 's/2', x: 'y' }, { no_schema: 1 }),
    ]);
    expect([...history.keys()].sort()).toEqual(['s/1', 's/2']);
    const s1 = history.get('s/1')!;
    expect(s1[0]).toEqual({
      pointer: '/topic',
      values: [
        { value: 'refund', count: 2, last_used_at: '2026-11-03T00:00:00Z' },
        { value: 'question', count: 1, last_used_at: '2026-11-02T00:00:00Z' },
      ],
    });
    expect(s1.find((f) => f.pointer === '/tags/*')?.values).toEqual([{ value: 'vip', count: 1, last_used_at: '2026-11-03T00:00:00Z' }]);
    expect(s1.find((f) => f.pointer === '/n')?.values[0].value).toBe(3);
    expect(s1.some((f) => f.pointer === '/schema')).toBe(false);
  });

  it('skips long strings and keeps a number distinct from its text', () => {
    const history = harvestHistory([
      run('2026-11-01T00:00:00Z', { schema: 's', a: 'x'.repeat(201), b: 1 }),
      run('2026-11-01T00:00:00Z', { schema: 's', b: '1' }),
    ]);
    const fields = history.get('s')!;
    expect(fields.some((f) => f.pointer === '/a')).toBe(false);
    expect(
      fields
        .find((f) => f.pointer === '/b')
        ?.values.map((v) => v.value)
        .sort(),
    ).toEqual([1, '1']);
  });
});
