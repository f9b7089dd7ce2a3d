// The mistakes a new author makes in their own project, each with the exact hint that says
// what to fix (docs/project-format.md, "When a project does not load"): a project read as
// CommonJS, CommonJS code in an ES module, a dependency that is not installed, an import of a
// missing file, manifest problems (all in one pass), and an edge to a node that does not exist.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadProject, ProjectLoadError } from '../../src/main/runtime/project/loader.ts';
import type { ProjectDiagnostic as Diagnostic } from '../../src/shared/runtime-contract.ts';
import { EXAMPLE, REPO, copyExample, startTestRuntime, tempDir } from './helpers/runtime.ts';

async function diagnosticsOf(load: () => Promise<unknown>): Promise<Diagnostic[]> {
  try {
    await load();
  } catch (err) {
    expect(err).toBeInstanceOf(ProjectLoadError);
    return (err as ProjectLoadError).diagnostics;
  }
  throw new Error('project loaded but should not have');
}

/** A copy of the example outside the repo: no package.json and no node_modules above it. */
function copyOutside(name: string): string {
  const dir = path.join(tempDir(name), 'my-agent');
  fs.cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !src.includes('.agent-studio') && !src.endsWith('.env') });
  return dir;
}

function edit(file: string, from: string | RegExp, to: string): void {
  const text = fs.readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`nothing to replace in ${file}`);
  fs.writeFileSync(file, next);
}

/** What `agent-studio runtime` prints on stderr for a project that does not load. */
async function runtimeErrors(dir: string): Promise<string> {
  const child = spawn(process.execPath, [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', dir, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  expect(await new Promise((r) => child.on('exit', r))).toBe(1);
  return stderr;
}

const COMMONJS = "so Node loads the project's .ts files as CommonJS and cannot read their import and export statements";

describe('a project without "type": "module"', () => {
  it('without a package.json: says to create one with "type": "module"', async () => {
    const dir = copyOutside('no-package-json');
    expect(await diagnosticsOf(() => loadProject(dir))).toEqual([
      {
        file: 'package.json',
        message: `the project has no package.json, so Node loads its .ts files as CommonJS and cannot read their import and export statements: create one with "type": "module" (run \`npm init -y && npm pkg set type=module\` in the project folder)`,
      },
    ]);
  });

  it('with a package.json that lacks it: says to set it, once for all modules', async () => {
    const dir = copyExample('no-type-module');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'my-agent', version: '1.0.0' }));
    expect(await diagnosticsOf(() => loadProject(dir))).toEqual([
      {
        file: 'package.json',
        message: `package.json has no "type": "module", ${COMMONJS}: set "type": "module" (run \`npm pkg set type=module\` in the project folder)`,
      },
    ]);
  });

  it('the runtime command prints the hint', async () => {
    const dir = copyExample('cli-no-type-module');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'my-agent', type: 'commonjs' }));
    expect(await runtimeErrors(dir)).toBe(
      `agent-studio runtime: the project at ${dir} is not valid:\n` +
        `  package.json: package.json has "type": "commonjs", ${COMMONJS}: set "type": "module" (run \`npm pkg set type=module\` in the project folder)\n`,
    );
  });
});

describe('CommonJS code in an ES module', () => {
  const REQUIRE_HINT = `require is CommonJS, but the project's files are ES modules ("type": "module"): use import instead of require() (import x from 'pkg'), or createRequire(import.meta.url) from node:module`;

  function withCommonJs(name: string): string {
    const dir = copyExample(name);
    edit(path.join(dir, 'src/skills.ts'), /\n/, "\nconst fs = require('node:fs');\n");
    edit(path.join(dir, 'src/evaluators.ts'), /\n/, '\nmodule.exports = {};\n');
    return dir;
  }

  it('require and module.exports: says what to write instead', async () => {
    const diags = await diagnosticsOf(() => loadProject(withCommonJs('require-in-esm')));
    expect(diags.map(({ file, message }) => ({ file, message }))).toEqual([
      { file: 'src/skills.ts', message: REQUIRE_HINT },
      {
        file: 'src/evaluators.ts',
        message: `module is CommonJS, but the project's files are ES modules ("type": "module"): use export instead of module.exports`,
      },
    ]);
  });

  it('at its line in the TypeScript source, as the runtime command prints it', async () => {
    // In its own process: the test runner's stack traces do not apply tsx's source maps.
    const dir = withCommonJs('cli-require-in-esm');
    expect(await runtimeErrors(dir)).toContain(`  src/skills.ts:2:12: ${REQUIRE_HINT}\n`);
  });
});

describe('a module that is not found', () => {
  it('a missing dependency: names the package and the command that installs it', async () => {
    const dir = copyOutside('no-deps');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'my-agent', type: 'module' }));
    // (LangGraph, LangChain core and the SDK come with the runtime; any other package is the project's.)
    edit(
      path.join(dir, 'src/graph.ts'),
      'import { Annotation,',
      "import { formatISO } from 'date-fns/formatISO';\nexport const stamp = formatISO;\nimport { Annotation,",
    );
    expect(await diagnosticsOf(() => loadProject(dir))).toEqual([
      {
        file: 'src/graph.ts',
        line: 4,
        column: 27,
        message:
          "package 'date-fns' is not installed (imported from src/graph.ts): the project needs its own dependencies; run `npm install date-fns` in the project folder",
      },
    ]);
  });

  it('a missing project file: names it and the file that imports it', async () => {
    const dir = copyExample('missing-import');
    edit(path.join(dir, 'src/graph.ts'), "'./skills.ts'", "'./skils.ts'");
    expect(await diagnosticsOf(() => loadProject(dir))).toEqual([
      { file: 'src/graph.ts', line: 7, column: 95, message: 'src/graph.ts imports src/skils.ts, which does not exist: did you mean src/skills.ts?' },
    ]);
  });
});

describe('manifest problems, all in one pass', () => {
  it('reports unknown keys, rewritten schema problems and missing files together', async () => {
    const dir = copyExample('manifest-one-pass');
    const file = path.join(dir, 'agent.json');
    const m = JSON.parse(fs.readFileSync(file, 'utf8'));
    m.inputMode = m.inputModes;
    delete m.inputModes;
    delete m.skills[0].description;
    m.skills[1].inputMode = ['text/plain'];
    m.graph.entry = 'src/graf.ts';
    m.evaluators[1].module = 'src/evals.ts';
    m.inputContracts[0].file = 'contracts/ticket.json';
    m.prompts.system = 'prompts/sytem.md';
    m.mcpServers = [{ name: 'tools', transport: 'stdio', command: 'node', cwd: 'tools' }];
    m.memory.windowSize = 0;
    fs.writeFileSync(file, JSON.stringify(m, null, 2));
    const diags = await diagnosticsOf(() => loadProject(dir));
    expect(diags.map(({ file, field, message }) => ({ file, field, message }))).toEqual([
      { file: 'agent.json', field: 'skills[0].description', message: 'required, a sentence shown to clients' },
      { file: 'agent.json', field: 'skills[1].inputMode', message: "unknown key 'inputMode': did you mean 'inputModes'?" },
      { file: 'agent.json', field: 'memory.windowSize', message: 'must be greater than 0, how many recent messages the graph sees' },
      { file: 'agent.json', field: 'inputMode', message: "unknown key 'inputMode': did you mean 'inputModes'?" },
      { file: 'agent.json', field: 'graph.entry', message: 'graph entry src/graf.ts not found' },
      { file: 'agent.json', field: 'inputContracts[0].file', message: 'contract file contracts/ticket.json not found' },
      { file: 'agent.json', field: 'evaluators[1].module', message: 'evaluator module src/evals.ts not found' },
      { file: 'agent.json', field: 'prompts.system', message: 'prompt file prompts/sytem.md not found' },
      { file: 'agent.json', field: 'mcpServers[0].cwd', message: 'MCP server folder tools not found' },
    ]);
    // Each at its line in agent.json (a missing field at the object that lacks it).
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const lineOf = (field: string) => lines[diags.find((d) => d.field === field)!.line! - 1].trim();
    expect(lineOf('skills[0].description')).toBe('{');
    expect(lineOf('skills[1].inputMode')).toMatch(/^"inputMode": \[/);
    expect(lineOf('inputMode')).toMatch(/^"inputMode": \[/);
    expect(lineOf('graph.entry')).toBe('"entry": "src/graf.ts",');
    expect(lineOf('mcpServers[0].cwd')).toBe('"cwd": "tools"');
  });

  it('still checks the contracts and the error catalogue of an otherwise invalid manifest', async () => {
    const dir = copyExample('manifest-sections');
    const file = path.join(dir, 'agent.json');
    const m = JSON.parse(fs.readFileSync(file, 'utf8'));
    m.version = 'one';
    m.inputContracts.push({ schema: 'support.ticket/1', jsonSchema: { type: 'object' } });
    fs.writeFileSync(file, JSON.stringify(m, null, 2));
    expect((await diagnosticsOf(() => loadProject(dir))).map((d) => `${d.field}: ${d.message}`)).toEqual([
      "version: must be a semantic version like 1.0.0, the agent's version",
      "inputContracts[1].schema: duplicate contract schema id 'support.ticket/1'",
    ]);
  });
});

describe('an edge to a node that does not exist', () => {
  function graphProject(name: string, edges: string): string {
    const dir = copyExample(name);
    fs.rmSync(path.join(dir, 'src'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'src'));
    const m = JSON.parse(fs.readFileSync(path.join(dir, 'agent.json'), 'utf8'));
    Object.assign(m, { graph: { entry: 'src/graph.ts', export: 'graph' }, evaluators: [], inputContracts: [], prompts: {} });
    fs.writeFileSync(path.join(dir, 'agent.json'), JSON.stringify(m, null, 2));
    fs.writeFileSync(
      path.join(dir, 'src/graph.ts'),
      [
        "import { Annotation, END, START, StateGraph } from '@langchain/langgraph';",
        'const State = Annotation.Root({ text: Annotation<string> });',
        'export const graph = new StateGraph(State)',
        "  .addNode('classify', () => ({}))",
        "  .addNode('answer', () => ({}))",
        "  .addEdge(START, 'classify')",
        edges,
        "  .addEdge('answer', END);",
        '',
      ].join('\n'),
    );
    return dir;
  }

  it('names the unknown target and the closest node, at its line', async () => {
    const dir = graphProject('edge-typo', "  .addEdge('classify', 'anser')");
    expect(await diagnosticsOf(() => startTestRuntime({ projectDir: dir }))).toEqual([
      { file: 'src/graph.ts', line: 7, column: 24, message: "edge from 'classify' to unknown node 'anser': did you mean 'answer'?" },
    ]);
  });

  it('checks the path map of a conditional edge', async () => {
    const dir = graphProject('branch-typo', "  .addConditionalEdges('classify', () => 'a', { a: 'answr', b: END })");
    expect(await diagnosticsOf(() => startTestRuntime({ projectDir: dir }))).toEqual([
      { file: 'src/graph.ts', line: 7, column: 52, message: "conditional edge from 'classify' to unknown node 'answr': did you mean 'answer'?" },
    ]);
  });
});

describe('the startup line names the agent by its manifest name', () => {
  function renamed(name: string): string {
    const dir = copyExample(name);
    edit(path.join(dir, 'agent.json'), '"name": "support-desk"', '"name": "help-desk"');
    return dir;
  }

  async function firstLine(args: string[]): Promise<string> {
    const child = spawn(process.execPath, [path.join(REPO, 'bin/agent-studio.mjs'), ...args], {
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.resume();
    let out = '';
    try {
      return await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d;
          if (out.includes('\n')) resolve(out.split('\n')[0]);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code} before its ready line`)));
      });
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode === null ? child.on('exit', r) : r(null)));
    }
  }

  it('agent-studio runtime', async () => {
    const dir = renamed('folder-name-runtime');
    expect(await firstLine(['runtime', '--project', dir, '--port', '0', '--data-dir', tempDir('name-rt')])).toMatch(
      /^Agent runtime for help-desk ready at http:\/\/127\.0\.0\.1:\d+\/$/,
    );
  });

  it('agent-studio serve', async () => {
    const dir = renamed('folder-name-serve');
    expect(await firstLine(['serve', '--project', dir, '--port', '0', '--data-dir', tempDir('name-serve')])).toMatch(
      /^Agent Studio for help-desk ready at http:\/\/127\.0\.0\.1:\d+\/$/,
    );
  });
});
