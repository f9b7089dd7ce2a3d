// The desktop shell's policy decisions (no Electron needed).
import { chmod, mkdtemp, mkdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
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
    // The real path comes back (tmpdir() itself may be a symlink, e.g. /var on macOS).
    await expect(projectFile(dir, 'src/graph.ts')).resolves.toBe(join(await realpath(dir), 'src', 'graph.ts'));
    await expect(projectFile(dir, '../etc/passwd')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
    await expect(projectFile(dir, '/etc/passwd')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
    await expect(projectFile(dir, 'src/../../x')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
    await expect(projectFile(dir, 'src')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(projectFile(dir, 'missing.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('treats a name starting with two dots as inside', async () => {
    await writeFile(join(dir, '..notes.md'), '# notes');
    await expect(projectFile(dir, '..notes.md')).resolves.toBe(join(await realpath(dir), '..notes.md'));
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

// Creating symlinks on Windows needs extra privileges; the policy itself is platform-neutral.
describe.skipIf(process.platform === 'win32')('project files behind symlinks', () => {
  let base: string;
  let project: string;
  let outside: string;
  beforeAll(async () => {
    // Real paths throughout, so expectations do not depend on tmpdir() being a symlink.
    base = await realpath(await mkdtemp(join(tmpdir(), 'policy-links-')));
    project = join(base, 'project');
    outside = join(base, 'outside');
    await mkdir(join(project, 'src'), { recursive: true });
    await mkdir(join(outside, 'nested'), { recursive: true });
    await writeFile(join(project, 'src', 'graph.ts'), 'export {}');
    await writeFile(join(outside, 'secret.txt'), 'secret');
    await writeFile(join(outside, 'nested', 'key.pem'), 'key');
    await symlink(join(outside, 'secret.txt'), join(project, 'secret-link.txt'));
    await symlink(outside, join(project, 'outside-dir'), 'dir');
    await symlink(join('src', 'graph.ts'), join(project, 'graph-link.ts'));
    await symlink(join(project, 'src'), join(project, 'src-link'), 'dir');
    await symlink(join(project, 'missing.ts'), join(project, 'dangling.ts'));
    await symlink(project, join(base, 'project-link'), 'dir');
  });
  afterAll(async () => rm(base, { recursive: true, force: true }));

  it('refuses a symlink to a file outside the project', async () => {
    await expect(projectFile(project, 'secret-link.txt')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
  });

  it('refuses a file under a symlink to a directory outside the project', async () => {
    await expect(projectFile(project, 'outside-dir/secret.txt')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
    await expect(projectFile(project, 'outside-dir/nested/key.pem')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
    // Going back up through the link still lands outside: `..` is resolved on the lexical path first.
    await expect(projectFile(project, 'outside-dir/../outside-dir/secret.txt')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
  });

  it('follows symlinks that stay inside the project', async () => {
    const real = join(project, 'src', 'graph.ts');
    await expect(projectFile(project, 'graph-link.ts')).resolves.toBe(real);
    await expect(projectFile(project, 'src-link/graph.ts')).resolves.toBe(real);
  });

  it('accepts a project folder that is itself reached through a symlink', async () => {
    const linked = join(base, 'project-link');
    await expect(projectFile(linked, 'src/graph.ts')).resolves.toBe(join(project, 'src', 'graph.ts'));
    await expect(projectFile(linked, 'graph-link.ts')).resolves.toBe(join(project, 'src', 'graph.ts'));
    await expect(projectFile(linked, 'secret-link.txt')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
    await expect(projectFile(linked, 'outside-dir/secret.txt')).rejects.toMatchObject({ code: 'OUTSIDE_PROJECT' });
  });

  it('reports a dangling symlink as not found', async () => {
    await expect(projectFile(project, 'dangling.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reports a missing project folder as not found', async () => {
    await expect(projectFile(join(base, 'no-such-project'), 'src/graph.ts')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
