import { describe, expect, it } from 'vitest';
import { RuntimeMetrics } from './metrics.ts';

const count = async (m: RuntimeMetrics, state: string) => {
  const line = (await m.text()).body.split('\n').find((l) => l.startsWith(`agent_runtime_turns_total{state="${state}"}`));
  return line ? Number(line.split(' ')[1]) : 0;
};

describe('turns by end state, from the task saves', () => {
  it('counts a turn once at its first settled save; a resumed task is a new turn', async () => {
    const m = new RuntimeMetrics('sqlite');
    m.taskSaved('t1', 'submitted');
    m.taskSaved('t1', 'working');
    m.taskSaved('t1', 'input-required');
    m.taskSaved('t1', 'input-required'); // a repeated save of the same end
    m.taskSaved('t1', 'working'); // resumed
    m.taskSaved('t1', 'completed');
    m.taskSaved('t2', 'failed'); // never ran here (a task another replica ran, reaped)
    expect(await count(m, 'input-required')).toBe(1);
    expect(await count(m, 'completed')).toBe(1);
    expect(await count(m, 'failed')).toBe(0);
  });

  it('keeps the last waiting count when the store does not answer', async () => {
    const m = new RuntimeMetrics('postgres');
    let fail = false;
    m.watch({
      activeTasks: () => 2,
      waitingTasks: () => (fail ? Promise.reject(new Error('down')) : Promise.resolve(3)),
      outbound: () => ({ limit: 32, in_use: 1, queued: 0 }),
      nats: () => ({ trace: true, control: false }),
    });
    const text = async () => (await m.text()).body;
    expect(await text()).toMatch(/^agent_runtime_tasks_waiting_input 3$/m);
    fail = true;
    const after = await text();
    expect(after).toMatch(/^agent_runtime_tasks_waiting_input 3$/m);
    expect(after).toMatch(/^agent_runtime_tasks_active 2$/m);
    expect(after).toMatch(/^agent_runtime_nats_up\{feature="trace"\} 1$/m);
    expect(after).toMatch(/^agent_runtime_nats_up\{feature="control"\} 0$/m);
  });
});
