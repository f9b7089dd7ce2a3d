import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingFiles } from './manifest-files.ts';

function project(files: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-files-'));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), '');
  }
  return dir;
}

describe('missingFiles', () => {
  it('reports every named file and folder that does not exist, in one pass', () => {
    const dir = project(['src/graph.mts', 'src/evals.ts', 'prompts/system.md']);
    const raw = {
      graph: { entry: 'src/graph.ts' },
      inputContracts: [
        { schema: 'a/1', file: 'contracts/a.json' },
        { schema: 'b/1', jsonSchema: {} },
      ],
      evaluators: [
        { name: 'ok', module: 'src/evals.ts' },
        { name: 'gone', module: 'src/gone.ts' },
      ],
      prompts: { system: 'prompts/system.md', greeting: 'prompts/greeting.md' },
      mcpServers: [
        { name: 'tools', transport: 'stdio', command: 'node', cwd: 'tools' },
        { name: 'web', transport: 'http', url: 'http://x/' },
      ],
    };
    expect(missingFiles(dir, raw)).toEqual([
      { path: ['graph', 'entry'], message: 'graph entry src/graph.ts not found (there is graph.mts)' },
      { path: ['inputContracts', 0, 'file'], message: 'contract file contracts/a.json not found' },
      { path: ['evaluators', 1, 'module'], message: 'evaluator module src/gone.ts not found' },
      { path: ['prompts', 'greeting'], message: 'prompt file prompts/greeting.md not found' },
      { path: ['mcpServers', 0, 'cwd'], message: 'MCP server folder tools not found' },
    ]);
  });

  it('tells a folder from a file', () => {
    const dir = project(['tools', 'src/graph.ts/x.ts']);
    const raw = { graph: { entry: 'src/graph.ts' }, mcpServers: [{ name: 't', transport: 'stdio', command: 'node', cwd: 'tools' }] };
    expect(missingFiles(dir, raw)).toEqual([
      { path: ['graph', 'entry'], message: 'graph entry src/graph.ts is not a file' },
      { path: ['mcpServers', 0, 'cwd'], message: 'MCP server folder tools is not a folder' },
    ]);
  });

  it('leaves paths outside the project and malformed manifests to the schema', () => {
    const dir = project([]);
    expect(missingFiles(dir, { graph: { entry: '../graph.ts' }, evaluators: 'nope', prompts: [1] })).toEqual([]);
    expect(missingFiles(dir, null)).toEqual([]);
  });
});
