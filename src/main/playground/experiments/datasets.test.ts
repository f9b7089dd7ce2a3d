import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BlobStore } from '../store/blobs.ts';
import { openTestStore } from '../store/test-support.ts';
import { DatasetService } from './datasets.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const line = (id: string, text: string) => `${JSON.stringify({ id, input: { text } })}\n`;

describe('datasets read from the project', () => {
  it('an unchanged file answers its earlier parse; an edit, a new file and a deleted one are seen at once', () => {
    const { dir, store } = openTestStore('datasets-', dirs);
    const project = path.join(dir, 'project');
    fs.mkdirSync(path.join(project, 'evals'), { recursive: true });
    const file = path.join(project, 'evals', 'smoke.jsonl');
    const datasets = new DatasetService({ projectDir: project, store, blobs: new BlobStore(path.join(dir, 'blobs')), save: async () => ({ sha256: '' }) });
    expect(datasets.read('smoke')).toBeUndefined();

    fs.writeFileSync(file, line('a', 'hello') + line('b', 'refund'));
    const first = datasets.read('smoke')!;
    expect(first.cases.map((c) => c.id)).toEqual(['a', 'b']);
    expect(datasets.read('smoke')).toBe(first);

    // Same size, other content: the text decides, not the file's size or time.
    fs.writeFileSync(file, line('a', 'hellO') + line('b', 'refund'));
    const edited = datasets.read('smoke')!;
    expect(edited).not.toBe(first);
    expect(edited.cases[0].input).toEqual({ text: 'hellO' });
    expect(edited.hash).not.toBe(first.hash);

    fs.writeFileSync(file, line('a', 'hellO') + '{broken\n');
    expect(datasets.read('smoke')!.diagnostics).toHaveLength(1);

    fs.rmSync(file);
    expect(datasets.read('smoke')).toBeUndefined();
    store.close();
  });
});
