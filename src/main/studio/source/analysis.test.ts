// Source targets by syntax-tree analysis, on small projects written to a temp folder: every
// way a node's function can be given to `addNode`, and what is not a node.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProjectAnalysis } from './analysis.ts';
import { sha256 } from './targets.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'targets-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;

const GRAPH = `import { StateGraph, START, END } from '@langchain/langgraph';
import { fanOut } from 'agent-studio/sdk';
import { imported } from './nodes/imported.ts';
import { reexported } from './nodes/index.ts';
import { makeNode } from './factory.ts';
import { refund, track } from './skills.ts';

const skills = { refund, track };

function declared(state: unknown) {
  return {};
}

const inline = async () => ({ ok: true });

export const graph = new StateGraph({})
  .addNode('inline', inline)
  .addNode('arrow', async (s: unknown) => ({ s }))
  .addNode('declared', declared)
  .addNode('imported', imported)
  .addNode('reexported', reexported)
  .addNode('made', makeNode('x'))
  .addNode('fan', async (s: { items: string[] }) => ({ r: await fanOut(s.items, (i) => skills[i as 'refund'](i)) }))
  .addEdge(START, 'inline')
  .addConditionalEdges('inline', (s: { go?: boolean }) => (s.go ? 'arrow' : 'declared'), ['arrow', 'declared'])
  .addEdge('fan', END);
`;

const FILES = {
  'agent.json': JSON.stringify({ name: 't', evaluators: [{ name: 'quality', module: 'src/evals.ts', export: 'quality', node: 'made' }] }, null, 2),
  'src/graph.ts': GRAPH,
  'src/nodes/imported.ts': `export async function imported(state: unknown) {\n  return { state };\n}\n`,
  'src/nodes/impl.ts': `export const reexported = async () => ({});\n`,
  'src/nodes/index.ts': `export { reexported } from './impl.ts';\n`,
  'src/factory.ts': `export function makeNode(label: string) {\n  return async (state: unknown) => ({ label, state });\n}\n`,
  'src/skills.ts': `export async function refund(x: string) {\n  return x;\n}\nexport async function track(x: string) {\n  return x;\n}\n`,
  'src/evals.ts': `export function quality() {\n  return { score: 1 };\n}\n`,
  'node_modules/dep/index.ts': `export const x = 1;\n`,
};

describe('ProjectAnalysis.targets', () => {
  const a = () => new ProjectAnalysis(project(FILES));

  it('finds the addNode call and an inline, a local and a declared function', () => {
    const analysis = a();
    const inline = analysis.targets('inline')!.targets;
    expect(inline[0]).toMatchObject({ kind: 'add_node', path: 'src/graph.ts', line: lineOf(GRAPH, ".addNode('inline'"), snippet: "addNode('inline', inline)" });
    expect(inline.find((t) => t.kind === 'function')).toMatchObject({ path: 'src/graph.ts', line: lineOf(GRAPH, 'const inline') });
    expect(inline.find((t) => t.kind === 'route_from')).toMatchObject({ line: lineOf(GRAPH, 'addConditionalEdges') });
    expect(analysis.targets('arrow')!.targets.find((t) => t.kind === 'function')!.line).toBe(lineOf(GRAPH, ".addNode('arrow'"));
    expect(analysis.targets('arrow')!.targets.find((t) => t.kind === 'route_to')).toBeDefined();
    expect(analysis.targets('declared')!.targets.find((t) => t.kind === 'function')!.line).toBe(lineOf(GRAPH, 'function declared'));
  });

  it('follows an import, and a re-export to the file that defines it', () => {
    const analysis = a();
    expect(analysis.targets('imported')!.targets.find((t) => t.kind === 'function')).toMatchObject({ path: 'src/nodes/imported.ts', line: 1 });
    expect(analysis.targets('reexported')!.targets.find((t) => t.kind === 'function')).toMatchObject({ path: 'src/nodes/impl.ts', line: 1 });
  });

  it('follows a factory to the function it returns, and the evaluator attached in the manifest', () => {
    const targets = a().targets('made')!.targets;
    expect(targets.find((t) => t.kind === 'factory')).toMatchObject({ path: 'src/factory.ts', line: 1 });
    expect(targets.find((t) => t.kind === 'function')).toMatchObject({ path: 'src/factory.ts', line: 2 });
    expect(targets.find((t) => t.kind === 'evaluator')).toMatchObject({ path: 'agent.json', snippet: expect.stringContaining('"quality"') });
    expect(targets.find((t) => t.kind === 'evaluator_function')).toMatchObject({ path: 'src/evals.ts', line: 1 });
  });

  it('names the fan-out branch and the functions it dispatches to, in their own file', () => {
    const branches = a()
      .targets('fan')!
      .targets.filter((t) => t.kind === 'branch');
    expect(branches.map((b) => `${b.path}:${b.line}`)).toEqual(['src/graph.ts:23', 'src/skills.ts:1', 'src/skills.ts:4']);
  });

  it('hashes the file as analysed, and sees an edit on the next request', () => {
    const dir = project(FILES);
    const analysis = new ProjectAnalysis(dir);
    const before = analysis.targets('imported')!.targets.find((t) => t.kind === 'function')!;
    expect(before.file_sha256).toBe(sha256(FILES['src/nodes/imported.ts']));
    const edited = `// moved down\n\n${FILES['src/nodes/imported.ts']}`;
    fs.writeFileSync(path.join(dir, 'src/nodes/imported.ts'), edited);
    fs.utimesSync(path.join(dir, 'src/nodes/imported.ts'), new Date(), new Date(Date.now() + 2000));
    const after = analysis.targets('imported')!.targets.find((t) => t.kind === 'function')!;
    expect(after).toMatchObject({ line: 3, file_sha256: sha256(edited) });
  });

  it('answers null for a node the graph does not add, and lists the nodes it does', () => {
    const analysis = a();
    expect(analysis.targets('missing')).toBeNull();
    expect(analysis.nodeIds().sort()).toEqual(['arrow', 'declared', 'fan', 'imported', 'inline', 'made', 'reexported']);
  });
});
