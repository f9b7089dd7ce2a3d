// A run's status as its event stream says it only moves the cached run forward.
import { describe, expect, it } from 'vitest';
import { isNewerStatus } from './queries.ts';

describe('isNewerStatus', () => {
  it('moves a run forward along its lifecycle', () => {
    expect(isNewerStatus('queued', 'preparing')).toBe(true);
    expect(isNewerStatus('queued', 'running')).toBe(true);
    expect(isNewerStatus('running', 'input_required')).toBe(true);
    expect(isNewerStatus('preparing', 'failed')).toBe(true);
  });

  it('never moves it back: a replayed or late event leaves a final state and a later step alone', () => {
    expect(isNewerStatus('input_required', 'running')).toBe(false);
    expect(isNewerStatus('completed', 'queued')).toBe(false);
    expect(isNewerStatus('running', 'preparing')).toBe(false);
    expect(isNewerStatus('running', 'running')).toBe(false);
  });
});
