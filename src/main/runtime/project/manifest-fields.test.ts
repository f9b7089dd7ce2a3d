import { describe, expect, it } from 'vitest';
import { fieldMeaning, formatFieldPath } from './manifest-fields.ts';

describe('formatFieldPath', () => {
  it('writes indices in brackets and names with dots', () => {
    expect(formatFieldPath(['skills', 0, 'description'])).toBe('skills[0].description');
    expect(formatFieldPath(['errorCatalogue', 'SD-404', 'code'])).toBe('errorCatalogue.SD-404.code');
    expect(formatFieldPath([])).toBe('(root)');
  });
});

describe('fieldMeaning', () => {
  it('matches list indices and map names', () => {
    expect(fieldMeaning(['skills', 3, 'description'])).toBe('a sentence shown to clients');
    expect(fieldMeaning(['errorCatalogue', 'SD-404', 'title'])).toBe('the message shown to clients');
    expect(fieldMeaning(['prompts', 'system'])).toBe("the project file holding the prompt's text");
  });

  it('knows nothing of fields outside the table', () => {
    expect(fieldMeaning(['skills', 'description'])).toBeUndefined();
    expect(fieldMeaning(['nope'])).toBeUndefined();
  });
});
