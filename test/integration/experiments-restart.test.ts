// An experiment the studio was running when it stopped (docs/playground-api.md, "Datasets and
// experiments"): it ends `cancelled`, reason `studio_shutdown`, its unfinished cases
// cancelled, and stays so when the studio starts again on the same data.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExperimentDetail } from '../../src/shared/experiments.ts';
import { copyExample, startTestStudio, tempDir, waitFor } from './helpers/playground-studio.ts';

describe('experiments across a studio restart', () => {
  const dir = copyExample('experiments-restart');
  const dataDir = tempDir('experiments-restart-data');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ends a running experiment studio_shutdown when the studio stops', async () => {
    const cases = Array.from({ length: 10 }, (_, i) =>
      JSON.stringify({ id: `slow-${i}`, input: { text: 'Where is my order ORD-23456?', metadata: { scriptedDelayMs: 150 } } }),
    );
    fs.writeFileSync(path.join(dir, 'evals', 'slow.jsonl'), `${cases.join('\n')}\n`);
    const first = await startTestStudio({ projectDir: dir, dataDir });
    const id = (await first.call('POST', '/experiments', { dataset: 'slow', concurrency: 1 })).body.experiment_id as string;
    await waitFor(
      async () => (await first.call('GET', `/experiments/${id}/cases`)).body.items.some((c: any) => c.status === 'running'),
      60_000,
      'a running case',
    );
    await first.close();

    const second = await startTestStudio({ projectDir: dir, dataDir, runtimeCommand: false });
    try {
      const d = (await second.call<ExperimentDetail>('GET', `/experiments/${id}`)).body;
      expect(d).toMatchObject({ status: 'cancelled', reason: 'studio_shutdown' });
      expect(d.counts.pending + d.counts.running).toBe(0);
      expect(d.counts.cancelled).toBeGreaterThan(0);
      expect(d.ended_at).not.toBeNull();
    } finally {
      await second.close();
    }
  });
});
