// The task store the SDK saves through (pushingTaskStore) on a real SQLite store and push
// service (docs/a2a-conformance.md, "Push notifications"; D-90, D-114): a configured task gets one
// notification per state a client waits for, whose body is the task as it was saved even when
// the SDK goes on changing the task object; states no client waits for make none.
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Task } from '@a2a-js/sdk';
import { openSqliteStore } from '../store/sqlite.ts';
import { useTempStoreFile } from '../store/test-support.ts';
import { PushService } from '../push/service.ts';
import { pushSettings } from '../push/settings.ts';
import { pushingTaskStore } from './push-rpc.ts';

const temp = useTempStoreFile('push-rpc-');
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

function setup() {
  const store = openSqliteStore(temp.file, { replica: 'r1' });
  opened.push(store);
  const push = new PushService({ store: store.pushStore(), settings: pushSettings({}), replica: 'r1', log: pino({ level: 'silent' }) });
  return { store, push, tasks: pushingTaskStore(push, store.taskStore()) };
}

const task = (id: string, state: Task['status']['state'], at: string): Task => ({
  kind: 'task',
  id,
  contextId: `ctx-${id}`,
  status: { state, timestamp: at },
  history: [],
});

describe('pushingTaskStore', () => {
  it('notifies each state a client waits for, with the task as saved', async () => {
    const { store, push, tasks } = setup();
    await push.set('t1', { id: 'c1', url: 'https://hooks.example.com/1' }, 'config');
    await push.close(); // no delivery here: the test claims the row itself
    const t = task('t1', 'submitted', '2026-01-01T00:00:00.000Z');
    await tasks.save(t);
    t.status = { state: 'working', timestamp: '2026-01-01T00:00:01.000Z' };
    await tasks.save(t);
    expect(await store.pushStore().outbox('t1')).toEqual([]); // no client waits for these states
    t.status = { state: 'completed', timestamp: '2026-01-01T00:00:02.000Z' };
    const saved = tasks.save(t);
    // The SDK changes the task once save() returned: the notification keeps the saved one.
    t.history = [{ kind: 'message', role: 'agent', messageId: 'later', parts: [{ kind: 'text', text: 'later' }] }];
    await saved;
    const rows = await store.pushStore().outbox('t1');
    expect(rows.map((r) => [r.configId, r.eventKey, r.status])).toEqual([['c1', 'completed@2026-01-01T00:00:02.000Z', 'pending']]);
    const [claimed] = await store.pushStore().claim('r1', 1000, 10);
    expect(JSON.parse(claimed!.body)).toMatchObject({ id: 't1', status: { state: 'completed' }, history: [] });
    // The task itself is stored as saved too.
    expect((await tasks.load('t1'))?.status.state).toBe('completed');
  });

  it('writes no notification for a task without a configuration', async () => {
    const { store, tasks } = setup();
    await tasks.save(task('t2', 'submitted', '2026-01-01T00:00:00.000Z'));
    await tasks.save(task('t2', 'completed', '2026-01-01T00:00:01.000Z'));
    expect(await store.pushStore().outbox('t2')).toEqual([]);
    expect((await tasks.load('t2'))?.status.state).toBe('completed');
  });
});
