import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { editedPromptFile, findPromptFiles } from './prompt-files.ts';

describe('manifest prompt files as the source of a message', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prompt-files-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds each non-empty prompt file the message holds as it is, with where it is', async () => {
    fs.mkdirSync(path.join(dir, 'prompts'));
    fs.writeFileSync(path.join(dir, 'prompts', 'system.md'), 'Be kind.\n');
    fs.writeFileSync(path.join(dir, 'prompts', 'empty.md'), '');
    fs.writeFileSync(path.join(dir, 'prompts', 'other.md'), 'Never used.');
    fs.writeFileSync(
      path.join(dir, 'agent.json'),
      JSON.stringify({ prompts: { system: './prompts/system.md', empty: 'prompts/empty.md', other: 'prompts/other.md', bad: 3 } }),
    );
    const found = await findPromptFiles(dir, 'Intro\nBe kind.\n\nDraft: x');
    expect(found).toEqual([{ kind: 'prompt_file', name: 'system', path: 'prompts/system.md', start: 6, end: 15, sha256: expect.any(String) }]);
    // The runtime does not trim the file's text, so neither does the match.
    expect(await findPromptFiles(dir, 'Be kind.')).toEqual([]);
    fs.writeFileSync(path.join(dir, 'agent.json'), '{ not json');
    expect(await findPromptFiles(dir, 'Be kind.\n')).toEqual([]);
  });

  it('takes the edited middle part when the text around the file is kept, and refuses an edit outside it', () => {
    const original = 'Intro\nBe kind.\n\nDraft: x';
    expect(editedPromptFile(original, 'Intro\nBe very kind.\nAlways.\n\nDraft: x', 'Be kind.\n')).toEqual({ ok: true, content: 'Be very kind.\nAlways.\n' });
    expect(editedPromptFile(original, 'Intro\n\nDraft: x', 'Be kind.\n')).toEqual({ ok: true, content: '' });
    expect(editedPromptFile(original, 'Intro\nBe kind.\n\nDraft: y', 'Be kind.\n')).toEqual({ ok: false, reason: 'outside' });
    expect(editedPromptFile(original, 'Hello\nBe kind.\n\nDraft: x', 'Be kind.\n')).toEqual({ ok: false, reason: 'outside' });
    // Before and after overlapping in a shortened edit is not a middle part.
    expect(editedPromptFile('abXab', 'ab', 'X')).toEqual({ ok: false, reason: 'outside' });
    expect(editedPromptFile(original, original, 'Be rude.')).toEqual({ ok: false, reason: 'not_in_message' });
    // The second occurrence is used when the edit keeps its surroundings only.
    expect(editedPromptFile('A-A', 'A-B', 'A')).toEqual({ ok: true, content: 'B' });
  });
});
