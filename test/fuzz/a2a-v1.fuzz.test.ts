// A seeded, bounded fuzz campaign over real HTTP against the A2A 1.0 bindings (D-86): JSON-RPC at
// POST / with an `A2A-Version` header, and HTTP+JSON under /v1. Whatever arrives, every answer
// is JSON (or an SSE stream of JSON) in the binding's documented error shape: a JSON-RPC error
// with a numeric code, or HTTP+JSON's google.rpc.Status `{error: {code, status, message}}`;
// never 5xx, HTML or a stack. A task stored before the campaign reads back the same after it.
//
// FUZZ_SEED and FUZZ_RUNS (per binding) reproduce or widen a campaign.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { startTestRuntime, type TestRuntime } from '../integration/helpers/runtime.ts';
import { checkAnswer, encodedBody, mutated, request, segment, send, transport, type FuzzRequest } from './support.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

let rt: TestRuntime;
let port: number;
let baselineTask: string;
let baseline: unknown;
const tally: Record<string, Record<number, number>> = {};

async function exchange(binding: string, req: FuzzRequest): Promise<{ status: number; body: any }> {
  const res = await send(port, req);
  const counts = (tally[binding] ??= {});
  counts[res.status] = (counts[res.status] ?? 0) + 1;
  return { status: res.status, body: checkAnswer(req, res) };
}

const message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'I want a refund for order ORD-12345' }], metadata: { userId: 'fuzzer' } };
const pushConfig = { id: 'c1', url: 'https://example.com/hook', token: 't', authentication: { scheme: 'Bearer', credentials: 'x' } };
const version = fc.oneof({ weight: 8, arbitrary: fc.constant('1.0') }, { weight: 1, arbitrary: fc.constantFrom('1.0.0', '1', '2.0', 'x', '1.0, 0.3') });

const getBaseline = async () =>
  (await fetch(rt.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: baselineTask } }),
  }).then((r) => r.json())) as unknown;

beforeAll(async () => {
  // The 1.x SDK's transports write each error they answer to console.error: thousands here.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  rt = await startTestRuntime({ env: { SCRIPTED_DELAY_MS: '0' } });
  port = Number(new URL(rt.url).port);
  const sent = await fetch(rt.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
  });
  baselineTask = ((await sent.json()) as { result: { task: { id: string } } }).result.task.id;
  baseline = await getBaseline();
}, 60_000);

afterAll(async () => {
  console.log(`A2A 1.0 fuzz campaign: seed ${SEED}; statuses per binding ${JSON.stringify(tally)}`);
  await rt?.close();
  vi.restoreAllMocks();
});

/** The task id a request names: the baseline's (read-only methods), or something else. */
const taskId = fc.oneof({ weight: 2, arbitrary: segment }, { weight: 1, arbitrary: fc.constant('BASELINE') });

describe('A2A 1.0 fuzz campaign (seeded, bounded)', () => {
  it('JSON-RPC with A2A-Version answers every input with a JSON-RPC response or error', async () => {
    const method = fc.constantFrom(
      'SendMessage',
      'SendStreamingMessage',
      'GetTask',
      'CancelTask',
      'ListTasks',
      'SubscribeToTask',
      'CreateTaskPushNotificationConfig',
      'GetTaskPushNotificationConfig',
      'ListTaskPushNotificationConfigs',
      'DeleteTaskPushNotificationConfig',
      'GetExtendedAgentCard',
      'message/send',
      'nope',
    );
    const paths = [
      ['jsonrpc'],
      ['id'],
      ['method'],
      ['params'],
      ['params', 'message'],
      ['params', 'message', 'parts'],
      ['params', 'message', 'parts', 0],
      ['params', 'message', 'parts', 0, 'text'],
      ['params', 'message', 'role'],
      ['params', 'message', 'messageId'],
      ['params', 'message', 'contextId'],
      ['params', 'message', 'taskId'],
      ['params', 'configuration'],
      ['params', 'configuration', 'returnImmediately'],
      ['params', 'configuration', 'historyLength'],
      ['params', 'configuration', 'taskPushNotificationConfig'],
      ['params', 'configuration', 'taskPushNotificationConfig', 'url'],
      ['params', 'id'],
      ['params', 'taskId'],
      ['params', 'url'],
      ['params', 'authentication'],
      ['params', 'pageSize'],
      ['params', 'pageToken'],
      ['params', 'status'],
      ['params', 'historyLength'],
    ];
    const doc = fc.tuple(method, taskId).chain(([m, id]) => {
      const tid = id === 'BASELINE' && !['CancelTask', 'CreateTaskPushNotificationConfig', 'DeleteTaskPushNotificationConfig'].includes(m) ? baselineTask : id;
      const template = {
        jsonrpc: '2.0',
        id: 1,
        method: m,
        params: { ...pushConfig, message, configuration: { returnImmediately: false, taskPushNotificationConfig: pushConfig }, id: tid, taskId: tid },
      };
      return mutated(template, paths);
    });
    await fc.assert(
      fc.asyncProperty(encodedBody(doc), transport, version, async (body, tr, v) => {
        const { status, body: answer } = await exchange('json-rpc 1.0', request(port, 'POST', '/', body, tr, { 'A2A-Version': v }));
        const items = Array.isArray(answer) ? answer : [answer];
        for (const item of items as { jsonrpc?: string; result?: unknown; error?: { code?: unknown; message?: unknown } }[]) {
          if (status === 200 && item.result !== undefined) expect(item.jsonrpc).toBe('2.0');
          else {
            expect(typeof item.error?.code, JSON.stringify(item)).toBe('number');
            expect(typeof item.error?.message).toBe('string');
          }
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 180_000);

  it('HTTP+JSON under /v1 answers every input with JSON, errors as {error: {code, status, message}}', async () => {
    const tid = taskId.map((id) => (id === 'BASELINE' ? baselineTask : id));
    const route = fc.oneof(
      fc.constantFrom(
        '/v1/message:send',
        '/v1/message:stream',
        '/v1/tasks',
        '/v1/tasks?pageSize=%ZZ',
        '/v1/tasks?pageSize=0',
        '/v1/extendedAgentCard',
        '/v1/card',
      ),
      tid.map((s) => `/v1/tasks/${s}`),
      tid.map((s) => `/v1/tasks/${s}?historyLength=-1`),
      segment.map((s) => `/v1/tasks/${s}:cancel`),
      tid.map((s) => `/v1/tasks/${s}:subscribe`),
      tid.map((s) => `/v1/tasks/${s}/pushNotificationConfigs`),
      fc.tuple(tid, segment).map(([s, c]) => `/v1/tasks/${s}/pushNotificationConfigs/${c}`),
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/v1/${s.join('/')}`),
    );
    const body = mutated({ message, configuration: { returnImmediately: false, taskPushNotificationConfig: pushConfig }, ...pushConfig }, [
      ['message'],
      ['message', 'parts'],
      ['message', 'parts', 0],
      ['message', 'role'],
      ['message', 'messageId'],
      ['configuration'],
      ['configuration', 'historyLength'],
      ['configuration', 'taskPushNotificationConfig'],
      ['url'],
      ['id'],
      ['token'],
      ['authentication'],
    ]);
    const method = fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH');
    await fc.assert(
      fc.asyncProperty(method, route, fc.option(encodedBody(body), { nil: undefined }), transport, version, async (m, r, b, tr, v) => {
        // Never the baseline's end: it must read back the same.
        fc.pre(!(m === 'POST' && r.includes(`${baselineTask}:cancel`)));
        const req = request(port, m, r, m === 'GET' || m === 'DELETE' ? undefined : b, tr, { 'A2A-Version': v });
        const { status, body: answer } = await exchange('http+json', req);
        if (status < 400) return;
        const items = Array.isArray(answer) ? answer : [answer];
        for (const item of items as { error?: { code?: unknown; status?: unknown; message?: unknown } }[]) {
          expect(typeof item.error?.code, JSON.stringify(item)).toBe('number');
          expect(typeof item.error?.status, JSON.stringify(item)).toBe('string');
          expect(typeof item.error?.message).toBe('string');
        }
      }),
      { seed: SEED + 1, numRuns: RUNS, endOnFailure: true },
    );
  }, 180_000);

  it('after the campaign the task stored before it reads back the same', async () => {
    expect(await getBaseline()).toEqual(baseline);
  });
});
