// Projects other than the example: the recursion-limit mapping, evaluator failures,
// the adapter's artifact-name constant, and precise errors for invalid projects.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProject, ProjectLoadError } from '../../src/main/runtime/project/loader.ts';
import { REPO, copyExample, sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';

const FIXTURES = path.join(REPO, 'test/fixtures');

async function diagnosticsOf(dir: string) {
  try {
    await loadProject(dir);
  } catch (err) {
    expect(err).toBeInstanceOf(ProjectLoadError);
    return (err as ProjectLoadError).diagnostics;
  }
  throw new Error('project loaded but should not have');
}

describe('graph recursion limit', () => {
  it('fails INTERNAL_ERROR with reason graph_recursion_limit', async () => {
    const rt = await startTestRuntime({ projectDir: path.join(FIXTURES, 'loop-agent') });
    try {
      const res = (await rt.client.sendMessage(sendParams('go'))) as any;
      expect(res.result.status.state).toBe('failed');
      const data = res.result.status.message.parts.find((p: any) => p.kind === 'data').data;
      expect(data).toMatchObject({ errorCode: 'INTERNAL_ERROR', errorReason: 'graph_recursion_limit', retriable: false });
    } finally {
      await rt.close();
    }
  });
});

describe('evaluators that throw, time out or abstain', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({ projectDir: path.join(FIXTURES, 'broken-evaluators') });
  });
  afterAll(async () => rt?.close());

  it('records errors as observations and never fails the completed answer', async () => {
    const res = (await rt.client.sendMessage(sendParams('hi'))) as any;
    expect(res.result.status.state).toBe('completed');
    expect(res.result.artifacts[0].name).toBe('echo-result');
    const mine = rt.traces.filter((e) => e.task_id === res.result.id);
    const errors = mine.filter((e) => e.name === 'evaluation.error').map((e) => e.evaluator);
    expect(errors).toEqual(['thrower', 'sleeper']);
    const results = mine.filter((e) => e.name === 'evaluation.result');
    expect(results.map((e) => e.evaluator)).toEqual(['abstainer', 'judge']);
    expect(results[0].score).toBeNull();
    expect(results[1]).toMatchObject({ score: 0.8, reason: 'fine', passStatus: 'pass' });
    expect(results[1]).not.toHaveProperty('scope');
  });
});

describe('an exit node that answers with a message only', () => {
  it('answers message/send and message/stream with the same text, taken from the exit node', async () => {
    const rt = await startTestRuntime({ projectDir: path.join(FIXTURES, 'messages-agent') });
    try {
      const expected = 'You said something, and here is a reply in several chunks.';
      const sent = (await rt.client.sendMessage(sendParams('hello'))) as any;
      expect(sent.result.status.state).toBe('completed');
      expect(sent.result.artifacts[0].parts).toEqual([{ kind: 'text', text: expected }]);
      const events: any[] = [];
      for await (const ev of rt.client.sendMessageStream(sendParams('hello again'))) events.push(ev);
      const chunks = events.filter((e) => e.kind === 'artifact-update' && !e.lastChunk);
      expect(chunks.length).toBeGreaterThan(1); // streamed token by token
      expect(chunks.map((c) => c.artifact.parts[0].text).join('')).toBe(expected);
      expect(events.find((e) => e.kind === 'artifact-update' && e.lastChunk).artifact.parts).toEqual([{ kind: 'text', text: expected }]);
      expect(events.at(-1).status.state).toBe('completed');
    } finally {
      await rt.close();
    }
  });
});

describe('invalid projects get precise errors', () => {
  it('names the manifest field and line of a schema problem', async () => {
    const dir = copyExample('bad-field');
    const file = path.join(dir, 'agent.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"version": "1.0.0"', '"version": "one"'));
    const [d] = await diagnosticsOf(dir);
    expect(d).toMatchObject({ file: 'agent.json', field: 'version', line: 4 });
    expect(d.message).toMatch(/semantic version/);
  });

  it('reports invalid JSON with its line', async () => {
    const dir = copyExample('bad-json');
    fs.writeFileSync(path.join(dir, 'agent.json'), '{\n  "name": "x",\n  oops\n}');
    const [d] = await diagnosticsOf(dir);
    expect(d.file).toBe('agent.json');
    expect(d.line).toBe(3);
  });

  it('reports a TypeScript syntax error with file and line', async () => {
    const dir = copyExample('bad-ts');
    const file = path.join(dir, 'src/skills.ts');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines.splice(9, 0, 'const broken = ;');
    fs.writeFileSync(file, lines.join('\n'));
    const diags = await diagnosticsOf(dir);
    expect(diags[0]).toMatchObject({ file: 'src/skills.ts', line: 10 });
  });

  it('reports a missing graph entry and a missing export', async () => {
    const dir = copyExample('bad-entry');
    const file = path.join(dir, 'agent.json');
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('"src/graph.ts"', '"src/nope.ts"'));
    expect((await diagnosticsOf(dir))[0]).toMatchObject({ field: 'graph.entry', message: expect.stringContaining('src/nope.ts') });
    fs.writeFileSync(file, text.replace('"createGraph"', '"makeGraph"'));
    expect((await diagnosticsOf(dir))[0]).toMatchObject({ file: 'src/graph.ts', field: 'graph.export', message: expect.stringContaining('createGraph') });
  });

  it('refuses an error catalogue entry with a non-standard code', async () => {
    const dir = copyExample('bad-catalogue');
    const file = path.join(dir, 'agent.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"code": "NOT_FOUND"', '"code": "MISSING"'));
    const [d] = await diagnosticsOf(dir);
    expect(d.field).toBe('errorCatalogue.SD-404.code');
  });
});
