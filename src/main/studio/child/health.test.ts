// The health monitor: misses in a row make a child hung, an answer in between resets them,
// and answers about a child that is no longer supervised are dropped.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HealthMonitor } from './health.ts';

afterEach(() => {
  vi.useRealTimers();
});

function monitor(answers: boolean[]) {
  const checks: string[] = [];
  const m = new HealthMonitor({
    check: async (url) => {
      checks.push(url);
      return answers.shift() ?? false;
    },
    intervalMs: 100,
    failures: 3,
    timeoutMs: 50,
  });
  return { m, checks };
}

describe('HealthMonitor', () => {
  it('reports the child hung after three misses in a row, not before, and not across an answer', async () => {
    vi.useFakeTimers();
    const { m, checks } = monitor([false, false, true, false, false, false]);
    const hung = vi.fn();
    m.watch('http://x/', () => true, hung);
    await vi.advanceTimersByTimeAsync(500);
    expect(checks).toHaveLength(5);
    expect(hung).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(100);
    expect(hung).toHaveBeenCalledTimes(1);
    m.stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(checks).toHaveLength(6);
  });

  it('drops answers about a child that is no longer the supervised one', async () => {
    vi.useFakeTimers();
    const { m } = monitor([]);
    const hung = vi.fn();
    m.watch('http://x/', () => false, hung);
    await vi.advanceTimersByTimeAsync(1000);
    expect(hung).not.toHaveBeenCalled();
    m.stop();
  });
});
