// A task's history and historyLength (docs/decisions.md D-44: A2A 1.0, as the Python reference
// server reads it: absent = all, 0 = none, n = the last n), on tasks/get, message/send and
// message/stream, through the official @a2a-js/sdk client against the real runtime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';

function task(res: any): Task {
  if (res.error) throw new Error(`JSON-RPC error ${res.error.code}: ${res.error.message}`);
  expect(res.result.kind).toBe('task');
  return res.result as Task;
}

const who = (t: Task) => (t.history ?? []).map((m) => `${m.role}:${m.parts.find((p) => p.kind === 'text')?.text ?? ''}`);

describe('task history and historyLength', () => {
  let rt: TestRuntime;
  /** A task that asked for input and was answered: user, agent (the question), user. */
  let resumed: Task;
  let question: string;
  beforeAll(async () => {
    rt = await startTestRuntime();
    const first = task(await rt.client.sendMessage(sendParams('I want a refund')));
    expect(first.status.state).toBe('input-required');
    question = (first.status.message?.parts.find((p) => p.kind === 'text') as { text: string }).text;
    resumed = task(await rt.client.sendMessage(sendParams('The order id is ORD-12345', { contextId: first.contextId, taskId: first.id })));
    expect(resumed.status.state).toBe('completed');
  });
  afterAll(async () => rt?.close());

  it('tasks/get keeps the user message of a completed task, as message/send returned it', async () => {
    const sent = task(await rt.client.sendMessage(sendParams('How do I reset my password?')));
    expect(sent.status.state).toBe('completed');
    expect(who(sent)).toEqual(['user:How do I reset my password?']);
    const got = task(await rt.client.getTask({ id: sent.id }));
    expect(got.history).toEqual(sent.history);
  });

  it('tasks/get without historyLength gives the whole history: the user messages and the agent question', async () => {
    const got = task(await rt.client.getTask({ id: resumed.id }));
    expect(who(got)).toEqual(['user:I want a refund', `agent:${question}`, 'user:The order id is ORD-12345']);
    expect(got.history?.[1].parts.find((p) => p.kind === 'data')).toMatchObject({ data: { inputRequired: true } });
  });

  it('tasks/get with historyLength 0 gives none, n the last n, and more than there is all', async () => {
    expect(task(await rt.client.getTask({ id: resumed.id, historyLength: 0 })).history).toEqual([]);
    expect(who(task(await rt.client.getTask({ id: resumed.id, historyLength: 1 })))).toEqual(['user:The order id is ORD-12345']);
    expect(who(task(await rt.client.getTask({ id: resumed.id, historyLength: 2 })))).toEqual([`agent:${question}`, 'user:The order id is ORD-12345']);
    expect(task(await rt.client.getTask({ id: resumed.id, historyLength: 50 })).history).toHaveLength(3);
    // a limited read changes nothing stored
    expect(task(await rt.client.getTask({ id: resumed.id })).history).toHaveLength(3);
  });

  it('message/send honours configuration.historyLength the same way', async () => {
    const none = task(await rt.client.sendMessage(sendParams('How do I change my address?', {}, { configuration: { historyLength: 0 } })));
    expect(none.status.state).toBe('completed');
    expect(none.history).toEqual([]);
    // what message/send left out is still the task's
    expect(who(task(await rt.client.getTask({ id: none.id })))).toEqual(['user:How do I change my address?']);

    const first = task(await rt.client.sendMessage(sendParams('Where is my order?')));
    expect(who(first)).toHaveLength(2); // absent: all (the user message and the question)
    const last = task(
      await rt.client.sendMessage(sendParams('ORD-23456', { contextId: first.contextId, taskId: first.id }, { configuration: { historyLength: 1 } })),
    );
    expect(last.status.state).toBe('completed');
    expect(who(last)).toEqual(['user:ORD-23456']);
    const all = task(await rt.client.getTask({ id: first.id }));
    expect(all.history).toHaveLength(3);
  });

  it('message/send with blocking:false limits the task it returns at once', async () => {
    const t = task(
      await rt.client.sendMessage(
        sendParams('How do I reset my password?', {}, { configuration: { blocking: false, historyLength: 0 }, metadata: { scriptedDelayMs: 30 } }),
      ),
    );
    expect(t.history).toEqual([]);
    const events = [];
    for await (const ev of rt.client.resubscribeTask({ id: t.id })) events.push(ev);
    expect(who(task(await rt.client.getTask({ id: t.id })))).toEqual(['user:How do I reset my password?']);
  });

  it('message/stream limits the task event it starts with', async () => {
    const events: any[] = [];
    for await (const ev of rt.client.sendMessageStream(sendParams('How do I reset my password?', {}, { configuration: { historyLength: 0 } }))) events.push(ev);
    const first = events.find((e) => e.kind === 'task') as Task;
    expect(first.history).toEqual([]);
    expect(task(await rt.client.getTask({ id: first.id })).history).toHaveLength(1);
  });
});
