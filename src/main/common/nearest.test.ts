import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance, nearest } from './nearest.ts';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps', () => {
    expect(editDistance('answer', 'answer')).toBe(0);
    expect(editDistance('anser', 'answer')).toBe(1);
    expect(editDistance('inputModes', 'inputMode')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('clasify', 'classify')).toBe(1);
    expect(editDistance('exitNdoe', 'exitNode')).toBe(1); // a swap is one edit
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('ignores case', () => {
    expect(editDistance('InputModes', 'inputModes')).toBe(0);
  });
});

describe('nearest', () => {
  const keys = ['name', 'description', 'version', 'skills', 'graph', 'inputModes', 'outputModes'];

  it('finds the closest name', () => {
    expect(nearest('inputMode', keys)).toBe('inputModes');
    expect(nearest('descripton', keys)).toBe('description');
    expect(nearest('anser', ['classify', 'answer', 'respond'])).toBe('answer');
  });

  it('suggests nothing when no name is close', () => {
    expect(nearest('temperature', keys)).toBeUndefined();
    expect(nearest('x', ['y', 'z'])).toBeUndefined();
    expect(nearest('zz', [])).toBeUndefined();
  });

  it('prefers the smaller distance, then the earlier candidate', () => {
    expect(nearest('tags', ['tag', 'tabs'])).toBe('tag');
    expect(nearest('nodes', ['node', 'notes'])).toBe('node');
  });

  it('formats the suggestion', () => {
    expect(didYouMean('inputMode', keys)).toBe(": did you mean 'inputModes'?");
    expect(didYouMean('temperature', keys)).toBe('');
  });
});
