// The playground's "Apply to source" for a manifest prompt file (docs/playground-api.md,
// "Playground for one call"; D-105), on the example project as it is: its system message is
// `prompts/system.md` followed by text its code adds. The real studio and runtime child, the
// model a local server speaking the OpenAI chat-completions protocol. An edit inside the
// file's part of the message is written to the file through the save path and the next run
// sends the new prompt; an edit outside it is refused with the reason; a file changed on disk
// since it was found is refused (409).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../src/shared/playground.ts';
import { copyExample, startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { replyChatCompletion } from './helpers/openai-reply.ts';

type Msg = { role: string; content: string };

async function fakeModel(): Promise<{ url: string; seen: Msg[][]; close(): Promise<void> }> {
  const seen: Msg[][] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const p = JSON.parse(body) as { model: string; stream?: boolean; messages: Msg[] };
      seen.push(p.messages);
      const content = `Answer ${seen.length}.`;
      replyChatCompletion(res, p, content);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, seen, close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

describe('playground: apply an edited prompt to the manifest prompt file it came from', () => {
  let model: Awaited<ReturnType<typeof fakeModel>>;
  let dir: string;
  let t: TestStudio;
  let promptFile: string;
  let prompt: string;

  async function systemMessageOfARun(): Promise<string> {
    const s = await t.call('POST', '/sessions', {});
    const a = await t.call('POST', `/sessions/${s.body.session_id}/runs`, { parts: [{ kind: 'text', text: 'Where is my order ORD-12345?' }] });
    expect(a.status).toBe(202);
    const run: RunDetail = await waitForRun(t, a.body.run_id, undefined, 60_000);
    expect(run.status).toBe('completed');
    const calls = (await t.call('GET', `/runs/${run.run_id}/calls`)).body.items as Record<string, any>[];
    const call = calls.find((c) => c.name === 'model.call')!;
    expect(call.input_messages[0].role).toBe('system');
    return call.input_messages[0].content as string;
  }

  beforeAll(async () => {
    model = await fakeModel();
    dir = copyExample('call-playground-prompt-file');
    promptFile = path.join(dir, 'prompts', 'system.md');
    prompt = fs.readFileSync(promptFile, 'utf8');
    fs.writeFileSync(path.join(dir, '.env'), `OPENAI_BASE_URL=${model.url}\nOPENAI_API_KEY=sk-play-secret\nOPENAI_MODEL=fake-gpt\nMODEL_MAX_RETRIES=0\n`);
    t = await startTestStudio({ projectDir: dir });
    await t.studio.runtime.waitReady(60_000);
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await model?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds prompts/system.md in the recorded system message, refuses an edit outside its part and a changed file, and writes an edit inside it', async () => {
    const original = await systemMessageOfARun();
    expect(original.startsWith(prompt)).toBe(true);
    expect(original.length).toBeGreaterThan(prompt.length); // the code adds the draft after it

    const found = await t.call('POST', '/source-literals', { text: original });
    expect(found.status).toBe(200);
    expect(found.body.literals).toEqual([
      { kind: 'prompt_file', name: 'system', path: 'prompts/system.md', start: 0, end: prompt.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    const match = found.body.literals[0];
    const tail = original.slice(prompt.length);
    const newPrompt = 'You are the support desk of an online shop. Answer in one cheerful sentence.\n';
    const edited = newPrompt + tail;

    // An edit that also changes the draft the code adds: refused with the reason, file kept.
    const outside = await t.call('POST', '/source-literals/apply', {
      kind: 'prompt_file',
      path: match.path,
      original,
      edited: newPrompt + tail.replace('Draft answer:', 'Draft:'),
      base_sha256: match.sha256,
    });
    expect(outside.status).toBe(400);
    expect(outside.body.detail).toMatchObject({ error: 'invalid_request', reason: 'edit_outside_prompt_file', path: 'prompts/system.md' });
    expect(outside.body.detail.message).toContain('outside prompts/system.md');
    expect(fs.readFileSync(promptFile, 'utf8')).toBe(prompt);

    // A file that is not a prompt of the manifest is not written as one.
    const notPrompt = await t.call('POST', '/source-literals/apply', { kind: 'prompt_file', path: 'README.md', original, edited, base_sha256: match.sha256 });
    expect(notPrompt.status).toBe(404);

    // Someone edits the file after it was found: refused, the file kept as they left it.
    const theirs = prompt + 'Never promise a delivery date.\n';
    fs.writeFileSync(promptFile, theirs);
    const stale = await t.call('POST', '/source-literals/apply', { kind: 'prompt_file', path: match.path, original, edited, base_sha256: match.sha256 });
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toMatchObject({ error: 'file_changed', path: 'prompts/system.md' });
    expect(fs.readFileSync(promptFile, 'utf8')).toBe(theirs);
    fs.writeFileSync(promptFile, prompt);

    const again = (await t.call('POST', '/source-literals', { text: original })).body.literals[0];
    const applied = await t.call('POST', '/source-literals/apply', { kind: 'prompt_file', path: again.path, original, edited, base_sha256: again.sha256 });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ path: 'prompts/system.md', size: Buffer.byteLength(newPrompt) });
    expect(fs.readFileSync(promptFile, 'utf8')).toBe(newPrompt);

    // The project reloads as after any save: the next run sends the new prompt to the model.
    const sent = model.seen.length;
    const next = await systemMessageOfARun();
    expect(next).toBe(edited);
    expect(model.seen.length).toBeGreaterThan(sent);
    expect(model.seen.at(-1)![0]).toEqual({ role: 'system', content: edited });
  }, 120_000);

  it('keeps literal matches as they were: a text no literal or prompt file holds has none', async () => {
    const r = await t.call('POST', '/source-literals', { text: 'No project file holds this sentence.' });
    expect(r.status).toBe(200);
    expect(r.body.literals).toEqual([]);
  });
});
