// Where the desktop app keeps its few settings: the last project opened, and the data dir
// for each project's studio store.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { app } from 'electron';

interface Settings {
  lastProject?: string;
}

function settingsFile(): string {
  return join(app.getPath('userData'), 'settings.json');
}

export function readSettings(): Settings {
  try {
    return JSON.parse(readFileSync(settingsFile(), 'utf8')) as Settings;
  } catch {
    return {};
  }
}

export function writeSettings(patch: Settings): void {
  const next = { ...readSettings(), ...patch };
  mkdirSync(app.getPath('userData'), { recursive: true });
  writeFileSync(settingsFile(), JSON.stringify(next, null, 2));
}

/** The example project shipped with the app (extraResources) or, in development, the repo's. */
export function bundledExampleDir(): string {
  return app.isPackaged ? join(process.resourcesPath, 'examples', 'support-desk') : join(app.getAppPath(), 'examples', 'support-desk');
}

/** AGENT_STUDIO_PROJECT, else the last project opened, else the bundled example. */
export function initialProjectDir(): string {
  const fromEnv = process.env.AGENT_STUDIO_PROJECT;
  if (fromEnv) return fromEnv;
  const last = readSettings().lastProject;
  if (last && existsSync(join(last, 'agent.json'))) return last;
  return bundledExampleDir();
}

/** One studio store per project, so sessions of different agents never mix. */
export function dataDirFor(projectDir: string): string {
  if (process.env.AGENT_STUDIO_DATA_DIR) return process.env.AGENT_STUDIO_DATA_DIR;
  const key = createHash('sha256').update(projectDir).digest('hex').slice(0, 16);
  return join(app.getPath('userData'), 'studio', key);
}
