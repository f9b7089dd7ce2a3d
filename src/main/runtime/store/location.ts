// Where the runtime's SQLite memory store lives (docs/deployment.md): DATA_DIR/memory.sqlite,
// DATA_DIR being --data-dir or DIR/.agent-studio/runtime. A start, `runtime migrate` and the
// retention sweep all find the file here.
import path from 'node:path';

/** --data-dir resolved, or the project's default data folder. */
export function runtimeDataDir(projectDir: string, dataDir?: string): string {
  return path.resolve(dataDir ?? path.join(path.resolve(projectDir), '.agent-studio', 'runtime'));
}

export function sqliteStoreFile(dataDir: string): string {
  return path.join(dataDir, 'memory.sqlite');
}
