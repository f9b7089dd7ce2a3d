// The agent's name as its author wrote it: the manifest's `name`, so logs and titles match the
// agent card. The folder name stands in only while agent.json is missing or unreadable.
import fs from 'node:fs';
import path from 'node:path';

export function agentName(projectDir: string): string {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(projectDir, 'agent.json'), 'utf8')) as { name?: unknown };
    if (typeof m.name === 'string' && m.name) return m.name;
  } catch {
    // fall back to the folder
  }
  return path.basename(path.resolve(projectDir));
}
