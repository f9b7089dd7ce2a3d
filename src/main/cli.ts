// The `agent-studio` command: one entry, a sub-command per service.
//   agent-studio runtime --project DIR [--host H] [--port N] [--data-dir DIR]
//   agent-studio serve   --project DIR [--port N] [--data-dir DIR]
//   agent-studio start   (npm start: Electron when its binary exists, else `serve` on the example)
import { UsageError } from './cli-args.ts';

const USAGE = `usage: agent-studio <command> [options]

commands:
  runtime --project DIR [--host 127.0.0.1] [--port N] [--data-dir DIR]
      serve one agent project over A2A 0.3.0
  serve --project DIR [--port N] [--data-dir DIR]
      the studio with no Electron: Playground API and renderer on 127.0.0.1
  start
      open the studio on examples/support-desk (Electron when available, else headless)
`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'runtime': {
        const { runRuntimeCommand } = await import('./runtime/cli.ts');
        await runRuntimeCommand(rest);
        return;
      }
      case 'serve': {
        const { runServeCommand } = await import('./studio/cli.ts');
        await runServeCommand(rest);
        return;
      }
      case 'start': {
        const { runStartCommand } = await import('./studio/start.ts');
        await runStartCommand(rest);
        return;
      }
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(USAGE);
        if (command === undefined) process.exitCode = 2;
        return;
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`agent-studio: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    throw err;
  }
}
