// The playground for one model call (docs/playground-api.md, "Playground for one call";
// D-100, D-101): a run's recorded model call opened from the run view, its system prompt
// edited and sent to the configured model (a local server speaking the OpenAI protocol), the
// new answer beside the recorded one with the text diff; the edit applied to the string
// literal in the project's source, and the run re-run from that node with the new prompt.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_PROJECT, useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';
import { replyChatCompletion } from '../test/integration/helpers/openai-reply.ts';

const seen: { messages: { role: string; content: string }[] }[] = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const p = JSON.parse(body) as { model: string; stream?: boolean; messages: { role: string; content: string }[] };
    seen.push({ messages: p.messages });
    const content = `Reply ${seen.length}: ${String(p.messages[0]?.content).includes('cheerful') ? 'Happy to help! Your parcel is on its way.' : 'Parcel shipped.'}`;
    replyChatCompletion(res, p, content, { prompt_tokens: 40, completion_tokens: 8, total_tokens: 48 });
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));

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
// Under the repository, as test/integration's copies: the project's .ts files load as ES modules there.
const tmpRoot = path.resolve(import.meta.dirname, '..', 'test', '.tmp');
fs.mkdirSync(tmpRoot, { recursive: true });
const dir = fs.mkdtempSync(path.join(tmpRoot, 'e2e-playground-'));
fs.cpSync(EXAMPLE_PROJECT, dir, { recursive: true, filter: (src) => !src.includes('.agent-studio') && !src.endsWith('.env') });
fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), GRAPH);
const { port } = server.address() as AddressInfo;
fs.writeFileSync(path.join(dir, '.env'), `OPENAI_BASE_URL=http://127.0.0.1:${port}/v1\nOPENAI_API_KEY=sk-e2e\nOPENAI_MODEL=fake-gpt\nMODEL_MAX_RETRIES=0\n`);

describe('playground for one model call', () => {
  const world = useStudioWorld({ studio: { projectDir: dir } });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('opens a recorded call, edits and sends it, shows the answer beside the original, applies the prompt to source and re-runs', async () => {
    const w = world();
    const { composer, run } = await openNewSession(w);
    await composer.typeText('Where is my parcel?');
    await composer.send();
    const origin = await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    await run.spanRow('respond').locator('button').click();
    const detail = run.root.getByTestId('span-detail');
    const call = detail.getByTestId('model-call');
    await call.locator('summary').first().click();
    await call.getByTestId('open-playground').click();

    const pg = w.page.getByTestId('call-playground');
    await pg.waitFor();
    const system = pg.getByTestId('pg-message-0');
    expect(await system.inputValue()).toBe('You are a terse support agent.');
    await system.fill('You are a cheerful support agent.');
    await pg.getByTestId('pg-temperature').fill('0.4');
    await pg.getByTestId('pg-send').click();
    const result = pg.getByTestId('pg-result').first();
    await expect.poll(() => result.getByTestId('pg-answer').textContent()).toContain('Happy to help!');
    expect(await result.getByTestId('pg-original').textContent()).toBe('Reply 1: Parcel shipped.');
    await result.getByTestId('pg-diff').waitFor();
    expect(seen.at(-1)!.messages[0]).toEqual({ role: 'system', content: 'You are a cheerful support agent.' });
    // Sent again: a second answer, the newest first.
    await pg.getByTestId('pg-send').click();
    await expect.poll(() => pg.getByTestId('pg-result').count()).toBe(2);
    await w.screenshot('90-call-playground');

    const source = pg.getByTestId('pg-source').first();
    expect(await source.textContent()).toContain('src/graph.ts:12');
    await source.getByTestId('pg-apply').click();
    await pg.getByTestId('pg-applied').waitFor();
    expect(fs.readFileSync(path.join(dir, 'src', 'graph.ts'), 'utf8')).toContain("new SystemMessage('You are a cheerful support agent.')");

    // Re-run from the call's node once the runtime has loaded the edit.
    await expect
      .poll(
        async () => {
          const s = (await (await fetch(`${w.url}/api/project`)).json()) as { state: string; pending_changes: string[] };
          return s.state === 'ready' && s.pending_changes.length === 0;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    await pg.getByTestId('pg-rerun').click();
    const forked = await run.waitForNewRun(origin);
    await run.waitForStatus('completed');
    // Forked from the checkpoint before `respond` (written by the node before it, here __start__).
    expect((await w.api.run(forked)).fork).toMatchObject({ run_id: origin, node: '__start__' });
    expect(seen.at(-1)!.messages[0]).toEqual({ role: 'system', content: 'You are a cheerful support agent.' });
  });

  it('offers a system message made of the manifest prompt file and code text for the prompt file, and writes only an edit inside its part (D-105)', async () => {
    const w = world();
    const promptFile = path.join(dir, 'prompts', 'system.md');
    const prompt = fs.readFileSync(promptFile, 'utf8');
    // Through the save path, so the project's pending change is known at once.
    const saved = await fetch(`${w.url}/api/save`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'src/graph.ts', content: PROMPT_GRAPH }),
    });
    expect(saved.status).toBe(200);
    await projectReady(w.url);
    const { composer, run } = await openNewSession(w);
    await composer.typeText('Where is my parcel?');
    await composer.send();
    await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    await run.spanRow('respond').locator('button').click();
    const call = run.root.getByTestId('span-detail').getByTestId('model-call');
    await call.locator('summary').first().click();
    await call.getByTestId('open-playground').click();

    const pg = w.page.getByTestId('call-playground');
    await pg.waitFor();
    const system = pg.getByTestId('pg-message-0');
    const original = await system.inputValue();
    expect(original).toBe(`${prompt}\nThe customer wrote: Where is my parcel?`);
    const source = pg.getByTestId('pg-source').first();
    await expect.poll(() => source.textContent()).toContain('prompts/system.md');
    const apply = source.getByTestId('pg-apply');
    expect(await apply.textContent()).toBe('Apply to prompts/system.md');

    // An edit of the text the code adds: not offered, and the playground says why.
    await system.fill(original.replace('The customer wrote', 'The client wrote'));
    expect(await apply.isDisabled()).toBe(true);
    expect(await source.getByTestId('pg-apply-outside').textContent()).toContain("outside prompts/system.md's part");

    const newPrompt = 'You are a cheerful support desk. Answer in one sentence.\n';
    await system.fill(newPrompt + original.slice(prompt.length));
    expect(await apply.isDisabled()).toBe(false);
    await apply.click();
    await pg.getByTestId('pg-applied').waitFor();
    expect(fs.readFileSync(promptFile, 'utf8')).toBe(newPrompt);
  });
});

const PROMPT_GRAPH = `
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { AgentState, createChatModel, type AgentContext } from 'agent-studio/sdk';

const State = Annotation.Root({ ...AgentState.spec });
type S = typeof State.State;

export function createGraph(ctx: AgentContext) {
  const model = createChatModel(ctx, () => 'offline answer');
  const respond = async (state: S) => {
    const text = state.request?.text ?? '';
    const a = await model.invoke([new SystemMessage(\`\${ctx.prompts.system ?? ''}\\nThe customer wrote: \${text}\`), new HumanMessage(text)]);
    return { response: { text: String(a.content) } };
  };
  return new StateGraph(State).addNode('respond', respond).addEdge(START, 'respond').addEdge('respond', END);
}
`;

/** Waits until the runtime has loaded the project's files as they are on disk. */
async function projectReady(url: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const s = (await (await fetch(`${url}/api/project`)).json()) as { state: string; pending_changes: string[] };
        return s.state === 'ready' && s.pending_changes.length === 0;
      },
      { timeout: 60_000 },
    )
    .toBe(true);
}
