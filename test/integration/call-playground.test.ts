// The playground for one model call (docs/playground-api.md, "Playground for one call";
// D-100, D-101): the real studio and runtime child, the model a local server speaking the
// OpenAI chat-completions protocol. A recorded call's messages, edited, are sent through the
// runtime to the configured model and the server receives the edit; the edited prompt is
// written back to the string literal it came from, and a change on disk since the literal
// was found is refused.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../src/shared/playground.ts';
import { copyExample, startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { replyChatCompletion } from './helpers/openai-reply.ts';

interface Seen {
  model: string;
  temperature?: number;
  max_tokens?: number;
  messages: { role: string; content: string }[];
}

async function fakeModel(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const p = JSON.parse(body) as Seen & { stream?: boolean; max_completion_tokens?: number };
      seen.push({ model: p.model, temperature: p.temperature, max_tokens: p.max_tokens ?? p.max_completion_tokens, messages: p.messages });
      const content = `answer #${seen.length} to ${p.messages[0]?.content}`;
      replyChatCompletion(res, p, content);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/v1`, seen, close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

const GRAPH = `
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { AgentState, createChatModel, type AgentContext } from 'agent-studio/sdk';

const State = Annotation.Root({ ...AgentState.spec });
type S = typeof State.State;

export function createGraph(ctx: AgentContext) {
  const model = createChatModel(ctx, () => 'offline answer');
  const respond = async (state: S) => {
    const a = await model.invoke([new SystemMessage('You are a terse support agent.'), new HumanMessage(state.request?.text ?? '')]);
    return { response: { text: String(a.content) } };
  };
  return new StateGraph(State).addNode('respond', respond).addEdge(START, 'respond').addEdge('respond', END);
}
`;

describe('playground for one model call', () => {
  let model: Awaited<ReturnType<typeof fakeModel>>;
  let dir: string;
  let t: TestStudio;
  let recorded: Record<string, any>;

  beforeAll(async () => {
    model = await fakeModel();
    dir = copyExample('call-playground');
    fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), GRAPH);
    fs.writeFileSync(path.join(dir, '.env'), `OPENAI_BASE_URL=${model.url}\nOPENAI_API_KEY=sk-play-secret\nOPENAI_MODEL=fake-gpt\nMODEL_MAX_RETRIES=0\n`);
    t = await startTestStudio({ projectDir: dir });
    await t.studio.runtime.waitReady(60_000);
    const s = await t.call('POST', '/sessions', {});
    const a = await t.call('POST', `/sessions/${s.body.session_id}/runs`, { parts: [{ kind: 'text', text: 'Where is my parcel?' }] });
    expect(a.status).toBe(202);
    const run: RunDetail = await waitForRun(t, a.body.run_id, undefined, 60_000);
    expect(run.status).toBe('completed');
    const calls = (await t.call('GET', `/runs/${run.run_id}/calls`)).body.items as Record<string, any>[];
    recorded = calls.find((c) => c.name === 'model.call')!;
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await model?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends an edited recorded call through the runtime: the model receives the edit and its answer comes back', async () => {
    expect(recorded.input_messages).toEqual([
      { role: 'system', content: 'You are a terse support agent.' },
      { role: 'human', content: 'Where is my parcel?' },
    ]);
    const before = model.seen.length;
    const edited = [{ role: 'system', content: 'You are a cheerful support agent.' }, recorded.input_messages[1]];
    const r = await t.call('POST', '/model-calls', { messages: edited, params: { model: 'fake-edited', temperature: 0.7, max_tokens: 64 } });
    expect(r.status).toBe(200);
    expect(model.seen).toHaveLength(before + 1);
    const got = model.seen.at(-1)!;
    expect(got.messages).toEqual([
      { role: 'system', content: 'You are a cheerful support agent.' },
      { role: 'user', content: 'Where is my parcel?' },
    ]);
    expect(got).toMatchObject({ model: 'fake-edited', temperature: 0.7, max_tokens: 64 });
    expect(r.body).toMatchObject({
      provider: 'openai',
      output_messages: [{ role: 'ai', content: `answer #${before + 1} to You are a cheerful support agent.` }],
      usage: { input_tokens: 50, output_tokens: 9 },
      response_model: 'fake-edited',
      finish_reasons: ['stop'],
      error: null,
    });
    expect(JSON.stringify(r.body)).not.toContain('sk-play-secret');
    // As many times as wanted: each send is a new call.
    const again = await t.call('POST', '/model-calls', { messages: edited });
    expect(again.status).toBe(200);
    expect(model.seen).toHaveLength(before + 2);
    expect(model.seen.at(-1)!.model).toBe('fake-gpt');
  });

  it('refuses a malformed call with a detail, and no request reaches the model', async () => {
    const before = model.seen.length;
    const bad = await t.call('POST', '/model-calls', { messages: [{ role: 'wizard', content: 'hi' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.detail.message).toContain('role must be system, human, ai or tool');
    const empty = await t.call('POST', '/model-calls', { messages: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.detail.error).toBe('invalid_request');
    expect(model.seen).toHaveLength(before);
  });

  it('finds the literal a prompt came from and writes the edited prompt back; a change on disk since is refused', async () => {
    const file = path.join(dir, 'src', 'graph.ts');
    const found = await t.call('POST', '/source-literals', { text: 'You are a terse support agent.' });
    expect(found.status).toBe(200);
    expect(found.body.literals).toHaveLength(1);
    const lit = found.body.literals[0];
    expect(lit).toMatchObject({ path: 'src/graph.ts', kind: 'string', line: 12 });

    // Someone edits the file after the literal was found: the apply is refused, the file kept.
    const changed = fs.readFileSync(file, 'utf8') + '\n// edited elsewhere\n';
    fs.writeFileSync(file, changed);
    const refused = await t.call('POST', '/source-literals/apply', {
      path: lit.path,
      line: lit.line,
      original: 'You are a terse support agent.',
      edited: "You are a cheerful support agent, aren't you?",
      base_sha256: lit.sha256,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatchObject({ error: 'file_changed', path: 'src/graph.ts' });
    expect(fs.readFileSync(file, 'utf8')).toBe(changed);

    const again = (await t.call('POST', '/source-literals', { text: 'You are a terse support agent.' })).body.literals[0];
    const applied = await t.call('POST', '/source-literals/apply', {
      path: again.path,
      line: again.line,
      original: 'You are a terse support agent.',
      edited: "You are a cheerful support agent, aren't you?",
      base_sha256: again.sha256,
    });
    expect(applied.status).toBe(200);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain(`new SystemMessage('You are a cheerful support agent, aren\\'t you?')`);
    expect(text).not.toContain('terse');
    expect(text).toContain('// edited elsewhere');
    expect(applied.body).toMatchObject({ path: 'src/graph.ts' });

    // A multi-line prompt becomes a template literal.
    const multi = await t.call('POST', '/source-literals/apply', {
      path: 'src/graph.ts',
      original: "You are a cheerful support agent, aren't you?",
      edited: 'Line one.\nLine `two` costs ${5}.',
      base_sha256: applied.body.sha256,
    });
    expect(multi.status).toBe(200);
    expect(fs.readFileSync(file, 'utf8')).toContain('new SystemMessage(`Line one.\nLine \\`two\\` costs \\${5}.`)');
    const stale = await t.call('POST', '/source-literals/apply', {
      path: 'src/graph.ts',
      original: 'not in the file',
      edited: 'x',
      base_sha256: multi.body.sha256,
    });
    expect(stale.status).toBe(404);
    const outside = await t.call('POST', '/source-literals/apply', { path: '../escape.ts', original: 'a', edited: 'b', base_sha256: multi.body.sha256 });
    expect(outside.status).toBe(403);
  });
});

describe('playground for one model call without a configured model', () => {
  let dir: string;
  let t: TestStudio;
  beforeAll(async () => {
    dir = copyExample('call-playground-offline');
    t = await startTestStudio({ projectDir: dir });
    await t.studio.runtime.waitReady(60_000);
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says no model is configured rather than answering with the scripted model', async () => {
    const r = await t.call('POST', '/model-calls', { messages: [{ role: 'human', content: 'Where is my order ORD-23456?' }] });
    expect(r.status).toBe(409);
    expect(r.body.detail.error).toBe('model_not_configured');
    expect(r.body.detail.message).toContain('No model is configured');
    expect(r.body.detail.message).toContain('MODEL_PROVIDER');
  });
});
