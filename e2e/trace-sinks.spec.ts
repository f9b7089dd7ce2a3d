// The top bar's runtime chip (docs/studio-ui.md): on a project whose .env sends the runtime's
// spans to an OpenTelemetry collector (TRACE_SINKS=log,otlp), the studio shows the runtime's
// state and its exporter, as the runtime's /api/v1/status reports it: what it exported after a
// run, and, once the collector is down, that it is retrying, with the spans waiting in its buffer
// and its last error.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyExample } from '../test/integration/helpers/runtime.ts';
import { startOtlpReceiver } from '../test/integration/helpers/otlp-receiver.ts';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

const receiver = await startOtlpReceiver();
const projectDir = copyExample('e2e-trace-sinks');
// A 2 s export timeout: an export to the stopped collector gives up (and the exporter shows
// `retrying`) within it, not after the default 10 s of the exporter's own retries.
fs.writeFileSync(path.join(projectDir, '.env'), `TRACE_SINKS=log,otlp\nOTEL_EXPORTER_OTLP_ENDPOINT=${receiver.url}\nOTEL_EXPORTER_OTLP_TIMEOUT=2000\n`);

describe('the runtime’s trace sinks in the top bar', () => {
  // Registered first so it runs last, after the studio on the copy has stopped.
  afterAll(async () => {
    await receiver.close();
    fs.rmSync(projectDir, { recursive: true, force: true });
  });
  const world = useStudioWorld({ studio: { projectDir } });

  it('shows the OpenTelemetry exporter: spans exported after a run, then retrying with a buffer while the collector is down', async () => {
    const { page } = world();
    const { composer, run } = await openNewSession(world());
    const chip = page.getByTestId('runtime-state');
    await expect.poll(() => chip.getAttribute('data-state'), { timeout: 60_000 }).toBe('ready');

    await composer.typeText('How do I reset my password?');
    await composer.send();
    const first = await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    const sink = page.getByTestId('trace-sink-otlp');
    // The run's spans leave within the exporter's batch window; the chip refreshes on its own.
    await expect.poll(async () => Number(/(\d+) exported/.exec((await sink.textContent()) ?? '')?.[1] ?? 0), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await sink.textContent()).toMatch(/^Spans → OpenTelemetry · (idle|exporting) · \d+ exported/);
    expect(await sink.getAttribute('title')).toContain(`Endpoint: ${receiver.url}/v1/traces`);
    expect(receiver.spans.length).toBeGreaterThan(0);

    await receiver.down();
    await composer.typeText('Where is my order ORD-23456?');
    await composer.send();
    await run.waitForNewRun(first);
    await run.waitForStatus('completed');
    await expect.poll(() => sink.getAttribute('data-state'), { timeout: 30_000 }).toBe('retrying');
    await expect.poll(async () => (await sink.textContent()) ?? '', { timeout: 10_000 }).toMatch(/\d+ buffered/);
    expect(await sink.getAttribute('title')).toMatch(/Last error: /);
  });
});
