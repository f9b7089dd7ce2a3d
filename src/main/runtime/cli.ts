// `agent-studio runtime --project DIR [--host 127.0.0.1] [--port N] [--data-dir DIR]`
import path from 'node:path';
import { parseFlags, parsePort, UsageError } from '../cli-args.ts';
import { ProjectLoadError } from './project/loader.ts';
import { SettingsError } from './config.ts';
import { RuntimeStartError, startRuntime } from './server.ts';
import { formatDiagnosticsLine, formatReadyLine, RUNTIME_ENV } from '../../shared/runtime-contract.ts';

export async function runRuntimeCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, {
    project: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'data-dir': { type: 'string' },
  });
  if (typeof flags.project !== 'string' || !flags.project) throw new UsageError('runtime needs --project DIR (the folder holding agent.json)');
  const port = parsePort(flags.port, Number(process.env.PORT ?? 8080));
  const host = typeof flags.host === 'string' ? flags.host : '127.0.0.1';
  try {
    const rt = await startRuntime({
      projectDir: flags.project,
      host,
      port,
      dataDir: typeof flags['data-dir'] === 'string' ? flags['data-dir'] : undefined,
    });
    survivePerRequestFailures(rt.context.log);
    process.stdout.write(`${formatReadyLine(rt.context.registry.current.project.manifest.name, rt.url)}\n`);
    const stop = () => {
      void rt.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (/^(1|true)$/i.test(process.env[RUNTIME_ENV.studioChild] ?? '')) exitWithParent(stop);
  } catch (err) {
    if (err instanceof ProjectLoadError) {
      process.stderr.write(`agent-studio runtime: the project at ${path.resolve(flags.project)} is not valid:\n${err.diagnostics.map((d) => `  ${formatLine(d)}`).join('\n')}\n`);
      // Under the studio, the same diagnostics in the contract's machine-readable line.
      if (/^(1|true)$/i.test(process.env[RUNTIME_ENV.studioChild] ?? '')) process.stderr.write(`${formatDiagnosticsLine(err.diagnostics)}\n`);
      process.exit(1);
    }
    if (err instanceof RuntimeStartError || err instanceof SettingsError) {
      process.stderr.write(`agent-studio runtime: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** A studio's runtime child stops when the studio is gone (killed with -9, or gone before it
 * could stop its child): Node reparents an orphan, so a changed parent pid is the signal. */
function exitWithParent(stop: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      stop();
    }
  }, 1000);
  timer.unref();
}

/** A serving runtime never ends because one request (or the project code it ran) threw
 * where nobody awaited it: the failure is logged with its stack, and the
 * process keeps serving. Bad input is refused before it gets this far (docs/security.md);
 * this is the net under the cases nobody foresaw. */
function survivePerRequestFailures(log: { error: (obj: object, msg: string) => void }): void {
  process.on('uncaughtException', (err) => log.error({ err }, 'uncaught exception; the runtime keeps serving'));
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled promise rejection; the runtime keeps serving'));
}

function formatLine(d: ProjectLoadError['diagnostics'][number]): string {
  const where = [d.file, d.line, d.column].filter((x) => x !== undefined).join(':');
  return `${where}${d.field ? ` [${d.field}]` : ''}: ${d.message}`;
}
