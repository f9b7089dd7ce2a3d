// `agent-studio runtime --project DIR [--host 127.0.0.1] [--port N] [--data-dir DIR]`
import path from 'node:path';
import { parseFlags, parsePort, UsageError } from '../cli-args.ts';
import { ProjectLoadError } from './project/loader.ts';
import { SettingsError } from './config.ts';
import { RuntimeStartError, startRuntime } from './server.ts';

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
    process.stdout.write(`Agent runtime for ${path.basename(path.resolve(flags.project))} ready at ${rt.url}\n`);
    const stop = () => {
      void rt.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (err) {
    if (err instanceof ProjectLoadError) {
      process.stderr.write(`agent-studio runtime: the project at ${path.resolve(flags.project)} is not valid:\n${err.diagnostics.map((d) => `  ${formatLine(d)}`).join('\n')}\n`);
      process.exit(1);
    }
    if (err instanceof RuntimeStartError || err instanceof SettingsError) {
      process.stderr.write(`agent-studio runtime: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

function formatLine(d: ProjectLoadError['diagnostics'][number]): string {
  const where = [d.file, d.line, d.column].filter((x) => x !== undefined).join(':');
  return `${where}${d.field ? ` [${d.field}]` : ''}: ${d.message}`;
}
