// The authoring loop over real HTTP (docs/studio-api.md): source targets, /api/project,
// /api/save inside the project only, and edits (saved in the studio or written on disk)
// reaching the next run with no changed_files from the client; a broken edit reported as
// project diagnostics before any run.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/runtime.ts';
import { rawRequest, openEditableStudio, waitFor, waitForRun, type EditableStudio, type TestStudio } from './helpers/playground-studio.ts';

async function json(t: TestStudio, method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}${p.replace(/^\//, '')}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe('the authoring loop', () => {
  let dir: string;
  let t: TestStudio;
  let session: string;
  let studio: EditableStudio;

  beforeAll(async () => {
    studio = await openEditableStudio('authoring');
    ({ dir, t, session } = studio);
  });
  afterAll(() => studio?.close());

  const ask = async (text: string) => {
    const accepted = await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text }] });
    expect(accepted.status).toBe(202);
    return waitForRun(t, accepted.body.run_id);
  };
  const answer = (run: any) => run.output_parts.find((p: any) => p.kind === 'text')?.text as string;

  it('finds where a node lives, and answers 404 with the known nodes for an unknown one', async () => {
    const found = await t.call('GET', '/source-targets/respond');
    expect(found.status).toBe(200);
    const fn = found.body.targets.find((x: any) => x.kind === 'function');
    const text = fs.readFileSync(path.join(dir, 'src/graph.ts'), 'utf8');
    expect(fn).toMatchObject({
      path: 'src/graph.ts',
      line: text.slice(0, text.indexOf('const respond')).split('\n').length,
      file_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const missing = await t.call('GET', '/source-targets/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatchObject({ error: 'not_found', node_id: 'nope', nodes: expect.arrayContaining(['respond', 'router']) });
  });

  it('describes the open project, and reads a file with its hash', async () => {
    const p = await json(t, 'GET', '/api/project');
    expect(p.body).toMatchObject({ name: 'support-desk', state: 'ready', diagnostics: [], files: expect.arrayContaining(['agent.json', 'src/graph.ts']) });
    expect(p.body.files).not.toContain('.env');
    const f = await json(t, 'GET', '/api/project/file?path=src/graph.ts');
    expect(f.body.content).toContain('addNode');
    expect((await json(t, 'GET', '/api/runtime')).body.state).toBe('ready');
    // Same loopback protection as the Playground API.
    expect((await rawRequest(`${t.url}api/project`, { headers: { host: 'attacker.example' } })).status).toBe(403);
  });

  it('a save through /api/save changes the next run, with no changed_files from the client', async () => {
    const f = await json(t, 'GET', '/api/project/file?path=src/graph.ts');
    const saved = await json(t, 'POST', '/api/save', {
      path: 'src/graph.ts',
      content: f.body.content.replace('Good news: your refund', 'Wonderful news: your refund'),
      base_sha256: f.body.sha256,
    });
    expect(saved.status).toBe(200);
    const run = await ask('I want a refund for order ORD-12345');
    expect(run.status).toBe('completed');
    expect(answer(run)).toContain('Wonderful news');
    // A save over what the editor opened, after the file changed: refused, nothing written.
    const stale = await json(t, 'POST', '/api/save', { path: 'src/graph.ts', content: 'oops', base_sha256: f.body.sha256 });
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toMatchObject({ error: 'file_changed', path: 'src/graph.ts' });
    expect(fs.readFileSync(path.join(dir, 'src/graph.ts'), 'utf8')).toContain('Wonderful news');
  });

  it('an edit written on disk by another editor reaches the next run too', async () => {
    const file = path.join(dir, 'src/graph.ts');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Wonderful news', 'Marvellous news'));
    const run = await ask('I want a refund for order ORD-12345');
    expect(answer(run)).toContain('Marvellous news');
  });

  it('a broken edit is a project diagnostic before any run; a run fails project_validation; the fix clears it', async () => {
    const f = await json(t, 'GET', '/api/project/file?path=src/graph.ts');
    const broken = f.body.content.replace('const DRAFT_MARKER', 'const DRAFT_MARKER =;\nconst BROKEN');
    expect((await json(t, 'POST', '/api/save', { path: 'src/graph.ts', content: broken })).status).toBe(200);
    const line = broken.slice(0, broken.indexOf('=;')).split('\n').length;
    const p = await waitFor(
      async () => {
        const r = await json(t, 'GET', '/api/project');
        return r.body.state === 'invalid' ? r.body : null;
      },
      20_000,
      'the project to be reported invalid',
    );
    expect(p.diagnostics[0]).toMatchObject({ file: 'src/graph.ts', line, message: expect.any(String) });
    const run = await ask('How do I reset my password?');
    expect(run).toMatchObject({ status: 'failed', reason: 'project_validation' });

    expect((await json(t, 'POST', '/api/save', { path: 'src/graph.ts', content: f.body.content })).status).toBe(200);
    await waitFor(async () => (await json(t, 'GET', '/api/project')).body.state === 'ready', 20_000, 'the project to load again');
    expect((await ask('How do I reset my password?')).status).toBe('completed');
  });

  it('records the code each run ran with, and shows a file as it was at a run', async () => {
    const before = await ask('How do I reset my password?');
    expect(before.code_fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(before.code_files!)).toEqual(expect.arrayContaining(['agent.json', 'src/graph.ts', 'prompts/system.md']));
    expect(Object.keys(before.code_files!)).not.toContain('.env');
    const project = await json(t, 'GET', '/api/project');
    expect(project.body.fingerprint).toBe(before.code_fingerprint);

    const prompt = path.join(dir, 'prompts/system.md');
    const old = fs.readFileSync(prompt, 'utf8');
    expect((await json(t, 'POST', '/api/save', { path: 'prompts/system.md', content: `${old}\nAlways sign as Robin.\n` })).status).toBe(200);
    const after = await ask('How do I reset my password?');
    expect(after.code_fingerprint).not.toBe(before.code_fingerprint);
    expect(after.code_files!['prompts/system.md']).not.toBe(before.code_files!['prompts/system.md']);
    expect(after.code_files!['src/graph.ts']).toBe(before.code_files!['src/graph.ts']);
    const then = await json(t, 'GET', `/api/project/file?path=prompts/system.md&run=${before.run_id}`);
    expect(then.body).toMatchObject({ content: old, run_id: before.run_id });
    expect((await json(t, 'GET', `/api/project/file?path=nope.ts&run=${before.run_id}`)).status).toBe(404);
  });

  it('refuses to write outside the project: .., absolute paths, links leading out', async () => {
    const outside = tempDir('outside');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'keep');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dir, 'link.txt'));
    fs.symlinkSync(outside, path.join(dir, 'linked-dir'));
    for (const target of ['../escape.ts', '/tmp/escape.ts', 'src/../../escape.ts', 'link.txt', 'linked-dir/secret.txt', 'linked-dir/new.ts']) {
      const res = await json(t, 'POST', '/api/save', { path: target, content: 'x' });
      expect(res.status, target).toBe(403);
      expect(res.body.detail.error, target).toBe('forbidden_path');
    }
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('keep');
    expect(fs.existsSync(path.join(outside, 'new.ts'))).toBe(false);
    expect((await json(t, 'GET', '/api/project/file?path=link.txt')).status).toBe(403);
  });
});
