import { describe, expect, it } from 'vitest';
import { hashFor, parseHash } from './ui.ts';

describe('the Evals view in the URL hash', () => {
  it('keeps the open dataset, experiment or compare of two experiments across a reload', () => {
    for (const hash of [
      '#/evals',
      '#/evals?dataset=support',
      '#/evals?experiment=exp_01ABC',
      '#/evals?left=exp_01A&right=exp_01B',
      '#/sessions/ses_1/evals?dataset=refunds',
    ]) {
      expect(hashFor(parseHash(hash))).toBe(hash);
    }
    expect(parseHash('#/evals?dataset=support&experiment=exp_1')).toMatchObject({ view: 'evals', evalsDataset: 'support', experimentId: 'exp_1' });
  });

  it('leaves the other views as they were', () => {
    for (const hash of ['#/', '#/sessions/ses_1/runs/run_2', '#/sessions/ses_1/compare?left=run_1&right=run_2', '#/source']) {
      expect(hashFor(parseHash(hash))).toBe(hash);
    }
    expect(parseHash('#/compare?left=run_1')).toMatchObject({ evalsDataset: null, experimentId: null, expLeft: null });
  });
});
