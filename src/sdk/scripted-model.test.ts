import { describe, expect, it } from 'vitest';
import { splitIntoChunks } from './scripted-model.ts';

const ANSWER =
  'To reset your password, open Settings, choose Security and follow the link we e-mail you. The link works for 30 minutes; ask again if it expires.';

describe('splitIntoChunks', () => {
  it('gives exactly n pieces whenever the text has at least n characters', () => {
    for (const text of [ANSWER, 'a'.repeat(40), 'one two three four five six seven', 'ab cd']) {
      for (let n = 1; n <= text.length; n++) {
        const pieces = splitIntoChunks(text, n);
        expect(pieces, `n=${n} of ${JSON.stringify(text)}`).toHaveLength(n);
        expect(pieces.join('')).toBe(text);
        expect(pieces.every((p) => p.length > 0)).toBe(true);
      }
    }
  });

  it('gives one piece per character when the text is shorter than n', () => {
    expect(splitIntoChunks('abc', 12)).toEqual(['a', 'b', 'c']);
    expect(splitIntoChunks('', 5)).toEqual(['']);
  });

  it('cuts after a space where one is near, so words stay whole', () => {
    const pieces = splitIntoChunks(ANSWER, 12);
    expect(pieces).toHaveLength(12);
    expect(pieces.slice(0, -1).every((p) => p.endsWith(' '))).toBe(true);
  });
});
