// The open project's state through the studio's API (docs/studio-api.md, GET /api/project): its
// code fingerprint now, and the wait until a saved change has been loaded by the runtime.
import { expect } from 'vitest';

interface ProjectStatus {
  fingerprint: string;
  state: string;
  pending_changes: string[];
}

export async function projectStatus(url: string): Promise<ProjectStatus> {
  return (await (await fetch(`${url}/api/project`)).json()) as ProjectStatus;
}

/** Resolves once the project's fingerprint differs from `before` and the runtime runs it. */
export async function waitProjectLoaded(url: string, before: string, timeout = 60_000): Promise<void> {
  await expect
    .poll(
      async () => {
        const s = await projectStatus(url);
        return s.fingerprint !== before && s.state === 'ready' && s.pending_changes.length === 0;
      },
      { timeout },
    )
    .toBe(true);
}
