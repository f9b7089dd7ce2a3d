// The built Electron main process (electron.vite.config.ts) finds every file it loads at run
// time, where the installers pack them (electron-builder.yml `files`): modules it opens by
// `new URL('./x', import.meta.url)` (the source-analysis worker) beside the built code, and
// the files it opens under the app folder (`path.join(repoRoot(), ...)`: the runtime child's
// entry, the renderer) in the packed list. The built worker is then started for real and
// answers the example's node ids, as "Go to source" asks it (docs/installers.md).
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import picomatch from 'picomatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
let outDir = '';
let configFile = '';

/** The `files:` globs of electron-builder.yml (a plain list of quoted or bare strings). */
function packedGlobs(): { include: string[]; exclude: string[] } {
  const yml = fs.readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8').split('\n');
  const start = yml.findIndex((l) => l.trim() === 'files:');
  const globs: string[] = [];
  for (const line of yml.slice(start + 1)) {
    if (/^\s+#/.test(line)) continue;
    const m = /^\s+-\s+'?([^']+?)'?\s*$/.exec(line);
    if (!m) break;
    globs.push(m[1]!);
  }
  return { include: globs.filter((g) => !g.startsWith('!')), exclude: globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1)) };
}

function isPacked(rel: string): boolean {
  const { include, exclude } = packedGlobs();
  return picomatch(include, { dot: true })(rel) && !picomatch(exclude, { dot: true })(rel);
}

function builtJs(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.m?js$/.test(f))
    .map((f) => path.join(dir, f));
}

beforeAll(async () => {
  // Inside the checkout, as out/main is: the bundle's bare imports resolve from node_modules
  // and repoRoot() finds bin/agent-studio.mjs above it.
  fs.mkdirSync(path.join(ROOT, 'out'), { recursive: true });
  outDir = fs.mkdtempSync(path.join(ROOT, 'out', '.built-main-test-'));
  configFile = path.join(outDir, 'electron.vite.config.ts');
  fs.writeFileSync(
    configFile,
    `import { processesOnly } from ${JSON.stringify(path.join(ROOT, 'electron.vite.config.ts'))};\n` +
      `export default processesOnly(${JSON.stringify(outDir)});\n`,
  );
  const { build } = await import('electron-vite');
  await build({ configFile, root: ROOT, logLevel: 'error' });
}, 180_000);

afterAll(() => {
  if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
});

describe('the built main process', () => {
  it('finds every module it opens by URL beside itself, and the packed list holds it', () => {
    const main = path.join(outDir, 'main');
    const urls: string[] = [];
    for (const file of builtJs(main)) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/new URL\(\s*["'](\.{1,2}\/[^"']+)["'],\s*import\.meta\.url\s*\)/g)) {
        const target = path.resolve(path.dirname(file), m[1]!);
        urls.push(path.relative(outDir, target));
        expect(fs.existsSync(target), `${path.relative(outDir, file)} opens ${m[1]}: missing`).toBe(true);
      }
    }
    expect(urls).toContain(path.join('main', 'worker-entry.mjs'));
    expect(isPacked('out/.vite-dev/deps/react.js')).toBe(false);
    // The same files under out/ in the app: electron-builder packs them.
    for (const rel of urls) {
      expect(isPacked(`out/${rel.split(path.sep).join('/')}`), `out/${rel} is not packed`).toBe(true);
    }
  });

  it('opens files under the app folder that the installers pack', () => {
    const joined = new Set<string>();
    for (const file of builtJs(path.join(outDir, 'main'))) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/path\.join\(repoRoot\(\),\s*((?:"[^"]+",?\s*)+)\)/g)) {
        joined.add([...m[1]!.matchAll(/"([^"]+)"/g)].map((p) => p[1]).join('/'));
      }
    }
    expect([...joined]).toContain('bin/agent-studio.mjs');
    for (const rel of joined) {
      expect(isPacked(rel) || isPacked(`${rel}/index.html`), `${rel} is not packed`).toBe(true);
      expect(fs.existsSync(path.join(ROOT, rel)) || rel.startsWith('out/'), `${rel} is missing in the checkout`).toBe(true);
    }
    // The runtime child runs from the packed TypeScript sources through tsx.
    for (const rel of ['bin/agent-studio.mjs', 'bin/run-ts.mjs', 'src/main/cli.ts', 'src/main/runtime/project/generation-hooks.mjs']) {
      expect(isPacked(rel), `${rel} is not packed`).toBe(true);
    }
  });

  it("starts the built source-analysis worker, which answers the example's node ids", async () => {
    const worker = new Worker(path.join(outDir, 'main', 'worker-entry.mjs'), {
      workerData: { projectDir: path.join(ROOT, 'examples', 'support-desk') },
    });
    try {
      const answer = await new Promise<{ ok: boolean; value: unknown; error?: string }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
        worker.postMessage({ op: 'nodes', id: 1 });
      });
      expect(answer.error).toBeUndefined();
      expect(answer.value).toEqual(expect.arrayContaining(['respond']));
    } finally {
      await worker.terminate();
    }
  });
});
