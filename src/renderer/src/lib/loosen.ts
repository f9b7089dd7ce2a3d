// Loosening a case's exact reference into assertions (docs/evaluation.md): what to propose
// from the reference output, and the case with the chosen assertions.
import type { Assertion, DatasetCase } from '../../../shared/datasets.ts';

export interface Choice {
  on: boolean;
  assertion: Assertion;
  label: string;
}

export function suggestions(c: DatasetCase): Choice[] {
  const out: Choice[] = [];
  for (const p of c.expected?.output?.parts ?? []) {
    if (p.kind === 'text' && p.text.trim()) {
      const value = p.text.trim().split('\n')[0].slice(0, 80);
      out.push({ on: true, assertion: { type: 'text_contains', value }, label: 'The answer contains' });
    } else if (p.kind === 'data') {
      for (const [k, v] of Object.entries(p.data)) {
        if (v === null || typeof v === 'object') continue;
        out.push({ on: true, assertion: { type: 'json_path_equals', path: `$.${k}`, value: v }, label: `Data $.${k} equals` });
      }
    }
  }
  return out;
}

/** The case with the chosen assertions (and the exact reference check kept or not). */
export function loosened(c: DatasetCase, chosen: Assertion[], keepReference: boolean): DatasetCase {
  const others = (c.expected?.assertions ?? []).filter((a) => a.type !== 'matches_reference');
  const assertions = [...(keepReference ? [{ type: 'matches_reference' } as Assertion] : []), ...others, ...chosen];
  return { ...c, expected: { ...c.expected, assertions } };
}
