// The desktop shell's policy decisions (no Electron needed).
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { couldExecute, editorCommand, isAllowedExternal, isSameOrigin, projectFile } from './policy.ts';

describe('external links and origins', () => {
  it('hands only https and mailto links to the OS', () => {
    expect(isAllowedExternal('https://example.com/docs')).toBe(true);
    expect(isAllowedExternal('mailto:help@example.com')).toBe(true);
    for (const bad of ['http://example.com', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'not a url']) {
      expect(isAllowedExternal(bad)).toBe(false);
    }
  });

  it('compares whole origins', () => {
    expect(isSameOrigin('http://127.0.0.1:5180/#/graph', 'http://127.0.0.1:5180')).toBe(true);
    expect(isSameOrigin('http://127.0.0.1:5181/', 'http://127.0.0.1:5180')).toBe(false);
    expect(isSameOrigin('http://localhost:5180/', 'http://127.0.0.1:5180')).toBe(false);
    expect(isSameOrigin('http://127.0.0.1:5180/', '')).toBe(false);
  });
});

describe('project files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'policy-'));
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'graph.ts'), 'export {}');
    await writeFile(join(dir, 'run.sh'), 'echo hi');
    await chmod(join(dir, 'run.sh'), 0o755);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('resolves files inside the project only', async () => {
    await expect(projectFile(dir, 'src/graph.ts')).resolves.toBe(join(dir, 'src', 'graph.ts'));
    await expect(projectFile(dir, '../etc/passwd')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
    await expect(projectFile(dir, '/etc/passwd')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
    await expect(projectFile(dir, 'src/../../x')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
    await expect(projectFile(dir, 'src')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(projectFile(dir, 'missing.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('never opens what could execute', () => {
    expect(couldExecute('/p/run.sh', 0o644, 'linux')).toBe(true);
    expect(couldExecute('/p/tool', 0o755, 'linux')).toBe(true);
    expect(couldExecute('/p/setup.EXE', 0o644, 'win32')).toBe(true);
    expect(couldExecute('/p/src/graph.ts', 0o644, 'linux')).toBe(false);
    expect(couldExecute('/p/tool', 0o755, 'win32')).toBe(false);
  });

  it('builds the editor command without a shell', () => {
    expect(editorCommand('code -g {file}:{line}', '/p/a b.ts', 7)).toEqual({ command: 'code', args: ['-g', '/p/a b.ts:7'] });
    expect(editorCommand('subl', '/p/x.ts')).toEqual({ command: 'subl', args: ['/p/x.ts'] });
    expect(editorCommand('   ', '/p/x.ts')).toBeNull();
  });
});
