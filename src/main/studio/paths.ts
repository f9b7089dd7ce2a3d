// Where the repository is, for the runtime entry (bin/agent-studio.mjs) and the built
// renderer (out/renderer). Found by walking up from this module, because the module runs
// from src/main/studio under tsx and from out/main when electron-vite bundles it.
import fs from 'node:fs';
import path from 'node:path';

let cached: string | null = null;

export function repoRoot(): string {
  if (cached) return cached;
  let dir = import.meta.dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'bin', 'agent-studio.mjs')) && fs.existsSync(path.join(dir, 'package.json'))) {
      cached = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the Agent Studio folder (bin/agent-studio.mjs) above ${import.meta.dirname}`);
    dir = parent;
  }
}
