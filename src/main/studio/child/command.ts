// How the studio starts its runtime child: the command line and the environment (the
// contract's RUNTIME_ENV, src/shared/runtime-contract.ts).
import path from 'node:path';
import { RUNTIME_ENV } from '../../../shared/runtime-contract.ts';
import { repoRoot } from '../paths.ts';
import { STUDIO_CHECKPOINT_DURABILITY } from '../../../shared/thread-state.ts';

export interface RuntimeCommandContext {
  projectDir: string;
  host: string;
  /** 0 on a first start: the runtime picks a free port and names it in its ready line. */
  port: number;
  /** The runtime's own data dir (<studio data dir>/runtime). */
  dataDir: string;
}

export interface RuntimeCommandSpec {
  command: string;
  args: string[];
  /** Environment on top of the studio's (it may override the capture settings). */
  env?: Record<string, string>;
  cwd?: string;
}

/** How to start the runtime; tests substitute a command that fails or hangs. */
export type RuntimeCommand = (ctx: RuntimeCommandContext) => RuntimeCommandSpec;

export const defaultRuntimeCommand: RuntimeCommand = (ctx) => ({
  command: process.execPath,
  args: [
    path.join(repoRoot(), 'bin', 'agent-studio.mjs'),
    'runtime',
    '--project',
    ctx.projectDir,
    '--host',
    ctx.host,
    '--port',
    String(ctx.port),
    '--data-dir',
    ctx.dataDir,
  ],
});

/** The child's environment: the studio's, the contract's settings, then the command's own. */
export function childEnv(captureUrl: string, token: string, spec: RuntimeCommandSpec): NodeJS.ProcessEnv {
  return {
    ...process.env,
    [RUNTIME_ENV.captureUrl]: captureUrl,
    // The registry reload endpoint (spec 4.2) lets changed files apply without a restart.
    [RUNTIME_ENV.controlEnabled]: 'true',
    [RUNTIME_ENV.controlToken]: token,
    [RUNTIME_ENV.studioChild]: '1',
    [RUNTIME_ENV.studioPid]: String(process.pid),
    [RUNTIME_ENV.defaultAgentId]: 'studio',
    // Every step checkpointed, so the debugger has a state to show at each one (the deployed
    // default is `exit`; docs/playground-api.md, "The state at every step").
    [RUNTIME_ENV.checkpointDurability]: process.env[RUNTIME_ENV.checkpointDurability] || STUDIO_CHECKPOINT_DURABILITY,
    // Under Electron, execPath is the Electron binary: make it behave as plain Node.
    ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}),
    ...spec.env,
  };
}

/** A command a user can paste to run the runtime by hand (spec 6.2). */
export function manualRunCommand(projectDir: string, port: number): string {
  return `npx agent-studio runtime --project ${shellQuote(path.resolve(projectDir))} --port ${port}`;
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? `"${s}"` : `"${s.replace(/(["\\$`])/g, '\\$1')}"`;
}
