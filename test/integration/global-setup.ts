// Once before the integration suites: the renderer built (tests that run `agent-studio serve`
// or pack the package need it; a checkout's serve would otherwise build it on first use and
// miss their timeouts) and PostgreSQL answering (started if it is down).
import { ensureRendererBuilt } from '../../src/main/studio/renderer-build.ts';
import { ensurePostgres } from './helpers/postgres.ts';

export default async function setup(): Promise<void> {
  const started = Date.now();
  await ensureRendererBuilt((line) => console.log(`[integration] ${line}`));
  if (Date.now() - started > 1000) console.log(`[integration] renderer built in ${Math.round((Date.now() - started) / 1000)} s`);
  await ensurePostgres();
}
