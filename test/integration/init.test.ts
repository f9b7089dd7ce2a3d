// `agent-studio init` options, and the framework a project outside this repo runs on: its
// imports of the SDK, LangGraph and LangChain resolve to the runtime's copies, and a
// package.json asking for versions the runtime does not bring is refused with the fix.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initProject, InitError, nameFromFolder } from '../../src/main/init/init.ts';
import { loadProject, ProjectLoadError } from '../../src/main/runtime/project/loader.ts';
import type { Task } from '@a2a-js/sdk';
import { sendParams, startTestRuntime, tempDir } from './helpers/runtime.ts';

const outside = (name: string) => path.join(fs.realpathSync(tempDir('init')), name);

describe('agent-studio init', () => {
  it('names the agent after its folder, or --name, and refuses an invalid name', () => {
    expect(nameFromFolder('/tmp/My Agent!')).toBe('my-agent');
    const dir = outside('named');
    expect(initProject({ dir, name: 'billing.bot' }).name).toBe('billing.bot');
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'agent.json'), 'utf8')).name).toBe('billing.bot');
    expect(fs.readFileSync(path.join(dir, '.env.example'), 'utf8')).toContain('AGENT_ID=billing.bot');
    expect(() => initProject({ dir: outside('bad'), name: 'no spaces' })).toThrow(/--name 'no spaces' is not a valid agent name/);
  });

  it('writes no dependency on agent-studio, and the SDK types its tsconfig maps agent-studio/sdk to', () => {
    const dir = outside('no-studio-dep');
    const r = initProject({ dir });
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(JSON.stringify(pkg)).not.toMatch(/"agent-studio"|file:/);
    expect(pkg.devDependencies.typescript).toMatch(/^\d+\.\d+\.\d+$/);
    const tsconfig = JSON.parse(fs.readFileSync(path.join(dir, 'tsconfig.json'), 'utf8'));
    const entry = tsconfig.compilerOptions.paths['agent-studio/sdk'][0] as string;
    expect(r.files).toContain(path.posix.normalize(entry));
    // Every export of the SDK is declared, and the declarations import only what the project installs.
    const declared = fs.readdirSync(path.join(dir, 'types/agent-studio-sdk')).map((f) => fs.readFileSync(path.join(dir, 'types/agent-studio-sdk', f), 'utf8'));
    const sdkIndex = fs.readFileSync(path.resolve(import.meta.dirname, '../../src/sdk/index.ts'), 'utf8');
    for (const m of sdkIndex.matchAll(/export (?:interface|type|const|function|class) (\w+)/g)) expect(declared.join('\n')).toContain(m[1]);
    const imported = new Set(
      declared.flatMap((t) => [...t.matchAll(/from '([^'.][^']*)'|import\("([^"]+)"\)/g)].map((m) => (m[1] ?? m[2]).split('/').slice(0, 2).join('/'))),
    );
    for (const spec of imported) expect(Object.keys(pkg.dependencies)).toContain(spec);
  });

  it('merges into a folder that only installed agent-studio, and --force writes over other files', () => {
    const dir = outside('existing');
    fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'mine', devDependencies: { 'agent-studio': 'file:../agent-studio-0.1.0.tgz' }, scripts: { test: 'vitest' } }),
    );
    initProject({ dir });
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: 'mine',
      type: 'module',
      scripts: { test: 'vitest', studio: 'agent-studio serve --project .' },
      devDependencies: { 'agent-studio': 'file:../agent-studio-0.1.0.tgz' },
    });

    const busy = outside('busy');
    fs.mkdirSync(busy);
    fs.writeFileSync(path.join(busy, 'notes.txt'), 'keep me');
    expect(() => initProject({ dir: busy })).toThrow(InitError);
    initProject({ dir: busy, force: true });
    expect(fs.readFileSync(path.join(busy, 'notes.txt'), 'utf8')).toBe('keep me');
    expect(fs.existsSync(path.join(busy, 'agent.json'))).toBe(true);
  });

  it('the support-desk template is a working copy under its new name, outside the repo and without node_modules', async () => {
    const dir = outside('desk');
    initProject({ dir, template: 'support-desk', name: 'desk' });
    expect(fs.existsSync(path.join(dir, 'src/skills.ts'))).toBe(true);
    const rt = await startTestRuntime({ projectDir: dir });
    try {
      expect(rt.runtime.context.registry.current.project.manifest.name).toBe('desk');
      const res = (await rt.client.sendMessage(sendParams('Where is my order ORD-23456?'))) as { result: Task };
      expect(res.result.status.state).toBe('completed');
      expect(JSON.stringify(res.result.artifacts)).toContain('ORD-23456');
    } finally {
      await rt.close();
    }
  }, 60_000);

  it('refuses framework versions the runtime does not bring, naming the version and the command', async () => {
    const dir = outside('old-langgraph');
    initProject({ dir });
    const file = path.join(dir, 'package.json');
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
    pkg.dependencies['@langchain/langgraph'] = '^0.2.40';
    fs.writeFileSync(file, JSON.stringify(pkg));
    const err = await loadProject(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectLoadError);
    expect((err as ProjectLoadError).diagnostics).toEqual([
      {
        file: 'package.json',
        field: 'dependencies.@langchain/langgraph',
        message:
          '@langchain/langgraph ^0.2.40 does not include 1.3.7, the version Agent Studio runs the graph on (supported: >=1.0.0 <=1.3.7): run `npm install @langchain/langgraph@1.3.7` in the project folder',
      },
    ]);
  });
});
