import { describe, expect, it } from 'vitest';
import type { RunOption } from '../../../shared/composer-schema.ts';
import { runOptionMetadata, runOptionText } from './run-options.ts';

const OPTIONS: RunOption[] = [
  { name: 'scriptedDelayMs', type: 'integer', default: 20, min: 0, max: 5000 },
  { name: 'ratio', type: 'number', min: 0, max: 1 },
  { name: 'tone', type: 'string', default: 'friendly' },
  { name: 'verbose', type: 'boolean', default: false },
];

describe('run options in the composer', () => {
  it('starts each field from its default and sends the defaults typed', () => {
    expect(runOptionText(OPTIONS[0]!, {})).toBe('20');
    expect(runOptionText(OPTIONS[1]!, {})).toBe('');
    expect(runOptionMetadata(OPTIONS, {})).toEqual({ metadata: { scriptedDelayMs: 20, tone: 'friendly', verbose: false }, problems: [] });
  });

  it('sends what the author typed, typed as declared; an emptied field sends nothing', () => {
    expect(runOptionMetadata(OPTIONS, { scriptedDelayMs: '400', ratio: '0.5', tone: '', verbose: 'true' })).toEqual({
      metadata: { scriptedDelayMs: 400, ratio: 0.5, verbose: true },
      problems: [],
    });
  });

  it('lists a value outside the type or the bounds as a problem instead of sending it', () => {
    expect(runOptionMetadata(OPTIONS, { scriptedDelayMs: '2.5', ratio: '3' }).problems).toEqual([
      'scriptedDelayMs: must be a whole number',
      'ratio: must be at most 1',
    ]);
    expect(runOptionMetadata(OPTIONS, { scriptedDelayMs: '-1' }).problems).toEqual(['scriptedDelayMs: must be at least 0']);
  });
});
