// The `agent-studio` command: one entry, a sub-command per service.
//   agent-studio init    [DIR] [--template minimal|support-desk] [--name NAME] [--force] | [DIR] --sdk-types
//   agent-studio runtime --project DIR [--host H] [--port N] [--data-dir DIR] [--workers N] [--insecure]
//   agent-studio runtime --check-config [DIR]
//   agent-studio runtime keys new NAME
//   agent-studio runtime migrate [--project DIR] [--data-dir DIR] [--dry-run]
//   agent-studio serve   --project DIR [--port N] [--data-dir DIR]
//   agent-studio eval    --project DIR [--dataset NAME] [--baseline FILE|last] [--repeat N] [--concurrency N] [--out DIR]
//   agent-studio start   (npm start: Electron when its binary exists, else `serve` on the example)
import { UsageError } from './cli-args.ts';

const USAGE = `usage: agent-studio <command> [options]

commands:
  init [DIR] [--template minimal|support-desk] [--name NAME] [--force] [--sdk-types]
      create an agent project in DIR (default: the current folder), then:
      cd DIR && npm install && agent-studio serve --project .
      --sdk-types: only rewrite the project's types/agent-studio-sdk/ (after an upgrade)
  runtime --project DIR [--host 127.0.0.1] [--port N] [--data-dir DIR] [--workers N] [--insecure]
      serve one agent project over A2A 0.3.0
      --port defaults to $PORT, else 8080; --data-dir to DIR/.agent-studio/runtime
      --workers N|auto: N replicas on this machine behind the one port (default 1;
      auto = one per CPU); see docs/deployment.md
      a --host other than loopback needs caller keys (A2A_API_KEYS or A2A_JWT_*) and
      operator keys (MANAGEMENT_API_KEYS), or --insecure; see docs/security.md
  runtime --check-config [DIR]
      print the settings a start in DIR would use (NAME=value and where it came from,
      secrets masked) and exit 0; a bad setting: its one-line error, exit 1
  runtime migrate [--project DIR] [--data-dir DIR] [--dry-run]
      apply the memory store's pending schema migrations (SQLite in the data dir, or
      POSTGRES_DSN) before rolling replicas of a new build, and print them; --dry-run
      only lists them (exit 0 either way); see docs/deployment.md, "Schema upgrades"
  runtime keys new NAME
      print a fresh API key once, and the NAME:sha256hex line for A2A_API_KEYS or
      MANAGEMENT_API_KEYS
  registry-event --agent ID [--version V] [--component KIND[:NAME]]... [--reason TEXT]
                 [--nats URL] [--prefix agent-studio.registry] [--wait MS]
      publish a registry change event; every replica of the agent with REGISTRY_EVENTS=nats
      reloads and answers; prints each outcome (exit 1 if one failed, 3 if none answered)
  serve --project DIR [--port N] [--data-dir DIR]
      the studio with no Electron: Playground API and renderer on 127.0.0.1
      --port defaults to 4280; --data-dir to DIR/.agent-studio/studio
  eval --project DIR [--dataset NAME] [--baseline FILE|last] [--repeat N] [--concurrency N]
       [--out DIR] [--data-dir DIR]
      run the project's datasets (evals/*.jsonl) headless; print progress; write results.json,
      junit.xml and summary.md to --out (default DIR/.agent-studio/eval); exit 0 when every
      case passed, 1 when one failed or (with --baseline) regressed, 2 on a usage error;
      --baseline last: the newest completed experiment in the studio data; see docs/evaluation.md
  start [--project DIR] [--port N] [--data-dir DIR] [--headless]
      open the studio (npm start): Electron when its binary exists, else headless;
      defaults: examples/support-desk, port 5180; data in DIR/.agent-studio/studio,
      for the example .data/studio in a checkout (~/.agent-studio/example-studio installed)

Settings come from the environment and DIR/.env (the environment wins); see docs/.
`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== undefined && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(USAGE);
    return;
  }
  try {
    switch (command) {
      case 'runtime': {
        const { runRuntimeCommand } = await import('./runtime/cli.ts');
        await runRuntimeCommand(rest);
        return;
      }
      case 'init': {
        const { runInitCommand } = await import('./init/init.ts');
        await runInitCommand(rest);
        return;
      }
      case 'registry-event': {
        const { runRegistryEventCommand } = await import('./runtime/cluster/registry-event-cli.ts');
        await runRegistryEventCommand(rest);
        return;
      }
      case 'serve': {
        const { runServeCommand } = await import('./studio/cli.ts');
        await runServeCommand(rest);
        return;
      }
      case 'eval': {
        const { runEvalCommand } = await import('./studio/eval-cli.ts');
        await runEvalCommand(rest);
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
