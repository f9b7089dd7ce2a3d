// `npm run typecheck`: the main process, tests and tools (tsconfig.node.json), the renderer
// (tsconfig.web.json) and the Electron-only code (tsconfig.electron.json: src/main/index.ts,
// src/main/electron, src/preload).
//
// Electron is an optional dependency that Node < 22.12 does not install (docs/installers.md,
// "Node versions"). Its code is still checked there: the types come from the pinned
// electron package's tarball (its electron.d.ts, from the registry `npm ci` used), cached
// under node_modules/.cache. Only when that cannot be fetched is the check skipped, and the
// reason printed.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

function check(project) {
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** The tsconfig for the Electron-only code: as is when electron is installed, else one that
 * adds the pinned version's declarations; null (with the reason) when neither is possible. */
function electronProject() {
  if (existsSync(join(root, 'node_modules', 'electron', 'electron.d.ts'))) return 'tsconfig.electron.json';
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).optionalDependencies.electron;
  const cache = join(root, 'node_modules', '.cache', 'agent-studio', `electron-${version}`);
  const types = join(cache, 'package', 'electron.d.ts');
  if (!existsSync(types)) {
    mkdirSync(cache, { recursive: true });
    try {
      const tarball = execFileSync('npm', ['pack', `electron@${version}`, '--silent', '--pack-destination', cache], { cwd: cache, encoding: 'utf8' }).trim();
      execFileSync('tar', ['-xzf', join(cache, tarball), '-C', cache, 'package/electron.d.ts']);
    } catch (err) {
      return { skip: `electron ${version} is not installed (it asks for Node >= 22.12) and its types could not be fetched: ${err.message.split('\n')[0]}` };
    }
  }
  const project = join(cache, 'tsconfig.json');
  writeFileSync(project, JSON.stringify({ extends: relative(cache, join(root, 'tsconfig.electron.json')), files: [types] }, null, 2));
  return project;
}

check('tsconfig.node.json');
check('tsconfig.web.json');
const electron = electronProject();
if (typeof electron === 'string') check(electron);
else console.log(`[typecheck] src/main/index.ts, src/main/electron and src/preload not type-checked: ${electron.skip}`);
