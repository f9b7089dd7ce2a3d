// `agent-studio serve --project DIR [--port N] [--host 127.0.0.1] [--data-dir DIR]`: the
// studio's main-process services with no Electron (docs/architecture.md). Prints its URL when
// ready; Ctrl+C stops it gracefully (active runs end interrupted, reason studio_shutdown).
import path from 'node:path';
import { parseFlags, parsePort, UsageError } from '../cli-args.ts';
import { StoreVersionError } from '../playground/store/db.ts';
import { checkLoopbackHost, startStudio, StudioStartError } from './studio.ts';
import { agentName } from '../common/agent-name.ts';
import { prepareRenderer } from './renderer-build.ts';

export const DEFAULT_STUDIO_PORT = 4280;

export async function runServeCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, {
    project: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'data-dir': { type: 'string' },
  });
  if (typeof flags.project !== 'string' || !flags.project) throw new UsageError('serve needs --project DIR (the folder holding agent.json)');
  const port = parsePort(flags.port, DEFAULT_STUDIO_PORT);
  const host = typeof flags.host === 'string' ? flags.host : undefined;
  try {
    checkLoopbackHost(host);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const projectDir = path.resolve(flags.project);
  const renderer = await prepareRenderer((line) => process.stderr.write(`${line}\n`));
  let studio: Awaited<ReturnType<typeof startStudio>>;
  try {
    const dataDir = typeof flags['data-dir'] === 'string' ? flags['data-dir'] : undefined;
    studio = await startStudio({ projectDir, port, host, dataDir, rendererDev: renderer.dev });
  } catch (err) {
    await renderer.close();
    if (err instanceof StudioStartError || err instanceof StoreVersionError) {
      process.stderr.write(`agent-studio serve: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  process.stdout.write(`Agent Studio for ${agentName(projectDir)} ready at ${studio.url}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`agent-studio serve: ${signal}: stopping (active runs end interrupted, reason studio_shutdown)\n`);
    Promise.all([studio.close(), renderer.close()]).then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`agent-studio serve: did not stop cleanly: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
