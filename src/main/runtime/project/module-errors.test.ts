import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleLoadDiagnostic, packageName } from './module-errors.ts';

function project(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'module-errors-'));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

function syntaxError(message: string): Error {
  return Object.assign(new SyntaxError(message));
}

function notFound(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
}

const GRAPH = "import { StateGraph } from '@langchain/langgraph';\nimport { route } from './route.ts';\nexport const graph = 1;\n";

describe('a project read as CommonJS', () => {
  it('asks for a package.json with "type": "module" when there is none', () => {
    const dir = project({ 'src/graph.ts': GRAPH });
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', syntaxError("Unexpected identifier 'S'"))).toEqual({
      file: 'package.json',
      message:
        'the project has no package.json, so Node loads its .ts files as CommonJS and cannot read their import and export statements: ' +
        'create one with "type": "module" (run `npm init -y && npm pkg set type=module` in the project folder)',
    });
  });

  it('asks for "type": "module" in a package.json without it, or with "commonjs"', () => {
    const dir = project({ 'package.json': '{"name":"my-agent"}', 'src/graph.ts': GRAPH });
    const fix =
      'so Node loads the project\'s .ts files as CommonJS and cannot read their import and export statements: set "type": "module" (run `npm pkg set type=module` in the project folder)';
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', syntaxError("Unexpected token '{'"))).toEqual({
      file: 'package.json',
      message: `package.json has no "type": "module", ${fix}`,
    });
    fs.writeFileSync(path.join(dir, 'package.json'), '{"name":"my-agent","type":"commonjs"}');
    const cycle = Object.assign(new Error('Cannot require() ES Module src/graph.ts in a cycle.'), { code: 'ERR_REQUIRE_CYCLE_MODULE' });
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', cycle)).toEqual({ file: 'package.json', message: `package.json has "type": "commonjs", ${fix}` });
    const outside = syntaxError('Cannot use import statement outside a module');
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', outside).message).toBe(`package.json has "type": "commonjs", ${fix}`);
  });

  it('leaves .mts files and ES-module projects to the other checks', () => {
    const dir = project({ 'package.json': '{"type":"module"}', 'src/graph.ts': GRAPH });
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', syntaxError('Unexpected end of input'))).toEqual({
      file: 'src/graph.ts',
      message: 'cannot load module: Unexpected end of input',
    });
    const bare = project({ 'src/graph.mts': GRAPH });
    expect(moduleLoadDiagnostic(bare, 'src/graph.mts', syntaxError('Unexpected end of input')).file).toBe('src/graph.mts');
  });
});

describe('CommonJS names in an ES module', () => {
  it('says what to use instead, at the line of the stack', () => {
    const dir = project({ 'package.json': '{"type":"module"}' });
    const err = Object.assign(new ReferenceError('require is not defined in ES module scope, you can use import instead'), {
      stack: `ReferenceError: require is not defined in ES module scope, you can use import instead\n    at <anonymous> (file://${dir}/src/skills.ts?agent-gen=3&agent-root=${dir}:2:12)\n    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)`,
    });
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', err)).toEqual({
      file: 'src/skills.ts',
      line: 2,
      column: 12,
      message:
        'require is CommonJS, but the project\'s files are ES modules ("type": "module"): use import instead of require() (import x from \'pkg\'), or createRequire(import.meta.url) from node:module',
    });
    for (const [name, fix] of [
      ['module', 'use export instead of module.exports'],
      ['exports', 'use export instead of exports.name = ...'],
      ['__dirname', 'use import.meta.dirname instead'],
    ]) {
      expect(moduleLoadDiagnostic(dir, 'src/graph.ts', new ReferenceError(`${name} is not defined in ES module scope`))).toEqual({
        file: '.',
        message: `${name} is CommonJS, but the project's files are ES modules ("type": "module"): ${fix}`,
      });
    }
  });
});

describe('a module that is not found', () => {
  it('names a missing package and the command that installs it, at the import', () => {
    const dir = project({ 'package.json': '{"type":"module"}', 'src/graph.ts': GRAPH });
    const err = notFound(`Cannot find package '@langchain/langgraph' imported from ${dir}/src/graph.ts`);
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', err)).toEqual({
      file: 'src/graph.ts',
      line: 1,
      column: 28,
      message:
        "package '@langchain/langgraph' is not installed (imported from src/graph.ts): the project needs its own dependencies; run `npm install @langchain/langgraph` in the project folder",
    });
  });

  it('agent-studio is provided by the runtime, not installed: an entry it does not export says to import agent-studio/sdk', () => {
    const dir = project({ 'package.json': '{"type":"module"}', 'src/graph.ts': "import { AgentState } from 'agent-studio/src/sdk/state.ts';\n" });
    const err = notFound(`Cannot find package 'agent-studio' imported from ${dir}/src/graph.ts`);
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', err).message).toBe(
      "package 'agent-studio' has no such entry (imported from src/graph.ts): Agent Studio provides `agent-studio/sdk` to the project when it runs it (it is not a dependency of the project): import from 'agent-studio/sdk'",
    );
  });

  it('names a missing project file, the importing file, and a close file name', () => {
    const dir = project({ 'package.json': '{"type":"module"}', 'src/graph.ts': GRAPH, 'src/router.ts': '' });
    const err = notFound(`Cannot find module '${dir}/src/route.ts' imported from ${dir}/src/graph.ts`);
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', err)).toEqual({
      file: 'src/graph.ts',
      line: 2,
      column: 23,
      message: 'src/graph.ts imports src/route.ts, which does not exist: did you mean src/router.ts?',
    });
    fs.rmSync(path.join(dir, 'src/router.ts'));
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', err).message).toBe('src/graph.ts imports src/route.ts, which does not exist: check the import path');
  });
});

describe('other failures', () => {
  it('keeps the location esbuild reports for a syntax error', () => {
    const dir = project({});
    const err = {
      message: 'Transform failed',
      errors: [{ text: 'Unexpected ";"', location: { file: path.join(dir, 'src/skills.ts'), line: 10, column: 15 } }],
    };
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', err)).toEqual({ file: 'src/skills.ts', line: 10, column: 16, message: 'Unexpected ";"' });
  });

  it('places an error thrown while loading at its project line', () => {
    const dir = project({ 'package.json': '{"type":"module"}' });
    const err = Object.assign(new Error('boom'), { stack: `Error: boom\n    at ${dir}/node_modules/x/index.js:1:1\n    at ${dir}/src/graph.ts:7:9` });
    expect(moduleLoadDiagnostic(dir, 'src/graph.ts', err)).toEqual({ file: 'src/graph.ts', line: 7, column: 9, message: 'boom' });
  });
});

describe('packageName', () => {
  it('drops the subpath of a bare specifier', () => {
    expect(packageName('@langchain/langgraph/web')).toBe('@langchain/langgraph');
    expect(packageName('zod/v4')).toBe('zod');
    expect(packageName('dotenv')).toBe('dotenv');
  });
});
