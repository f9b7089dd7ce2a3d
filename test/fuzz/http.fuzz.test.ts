// A seeded, bounded fuzz campaign over real HTTP against the headless studio and the runtime
// child it supervises (a real process): the runtime's JSON-RPC endpoint, its management API
// and the Playground API. Whatever arrives, every answer is JSON in the surface's own error
// shape (never 5xx, never an HTML page or a stack), the runtime process never exits, and a
// thread and a run stored before the campaign read back the same after it.
//
// FUZZ_SEED and FUZZ_RUNS (per surface) reproduce or widen a campaign; a failure prints the
// seed and the shrunk request to replay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestStudio, waitForRun, type TestStudio } from '../integration/helpers/playground-studio.ts';
import { checkAnswer, encodedBody, mutated, request, segment, send, transport, type FuzzRequest } from './support.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const BASELINE_CONTEXT = 'fuzz-baseline-context';

let t: TestStudio;
let runtimePort: number;
let studioPort: number;
let runtimePid: number | null;
let fuzzSession: string;
const baseline: { thread?: unknown; run?: unknown; session?: string; runId?: string } = {};
/** Answers per surface and status, printed at the end: what the campaign reached. */
const tally: Record<string, Record<number, number>> = {};

async function exchange(surface: string, port: number, req: FuzzRequest): Promise<{ status: number; body: any }> {
  const res = await send(port, req);
  const counts = (tally[surface] ??= {});
  counts[res.status] = (counts[res.status] ?? 0) + 1;
  return { status: res.status, body: checkAnswer(req, res) };
}

const rpcMessage = (contextId?: string) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: {
    message: {
      kind: 'message',
      messageId: 'm-1',
      role: 'user',
      parts: [{ kind: 'text', text: 'I want a refund for order ORD-12345' }],
      ...(contextId ? { contextId } : {}),
    },
    metadata: { userId: 'fuzzer' },
    configuration: { blocking: true },
  },
});

beforeAll(async () => {
  process.env.SCRIPTED_DELAY_MS = '0'; // the runtime child inherits it: answers without typing delays
  t = await startTestStudio();
  const url = await t.studio.runtime.waitReady(60_000);
  if (!url) throw new Error('the runtime did not start');
  runtimePort = Number(new URL(url).port);
  studioPort = t.studio.port;
  runtimePid = t.studio.runtime.status()?.pid ?? null;

  // Stored before the campaign: a conversation thread on the runtime and a Playground run.
  const sent = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rpcMessage(BASELINE_CONTEXT)) });
  expect(((await sent.json()) as { result?: { status?: { state?: string } } }).result?.status?.state).toBe('completed');
  baseline.thread = await (await fetch(`${url}api/v1/memory/threads/${BASELINE_CONTEXT}/messages`)).json();
  baseline.session = (await t.call('POST', '/sessions', { title: 'baseline' })).body.session_id;
  baseline.runId = (await t.call('POST', `/sessions/${baseline.session}/runs`, { parts: [{ kind: 'text', text: 'refund order 42' }] })).body.run_id;
  baseline.run = await waitForRun(t, baseline.runId!);
  fuzzSession = (await t.call('POST', '/sessions', { title: 'fuzz' })).body.session_id;
}, 120_000);

afterAll(async () => {
  const total = Object.values(tally).reduce((n, c) => n + Object.values(c).reduce((a, b) => a + b, 0), 0);
  console.log(`fuzz campaign: seed ${SEED}, ${total} requests; statuses per surface ${JSON.stringify(tally)}`);
  await t?.close();
});

describe('HTTP fuzz campaign (seeded, bounded)', () => {
  it('POST / answers every input with a JSON-RPC response or error', async () => {
    const paths = [
      ['jsonrpc'],
      ['id'],
      ['method'],
      ['params'],
      ['params', 'message'],
      ['params', 'message', 'parts'],
      ['params', 'message', 'parts', 0],
      ['params', 'message', 'parts', 0, 'kind'],
      ['params', 'message', 'parts', 0, 'text'],
      ['params', 'message', 'parts', 1],
      ['params', 'message', 'messageId'],
      ['params', 'message', 'role'],
      ['params', 'message', 'contextId'],
      ['params', 'message', 'taskId'],
      ['params', 'message', 'referenceTaskIds'],
      ['params', 'message', 'metadata'],
      ['params', 'message', 'kind'],
      ['params', 'message', 'extensions'],
      ['params', 'metadata'],
      ['params', 'metadata', 'history'],
      ['params', 'configuration'],
      ['params', 'configuration', 'blocking'],
      ['params', 'configuration', 'historyLength'],
      ['params', 'id'],
      ['params', 'taskId'],
      ['params', 'pushNotificationConfig'],
      ['params', 'pushNotificationConfigId'],
      ['params', 'configuration', 'pushNotificationConfig'],
    ];
    const method = fc.constantFrom(
      'message/send',
      'message/stream',
      'tasks/get',
      'tasks/cancel',
      'tasks/resubscribe',
      'tasks/pushNotificationConfig/get',
      'tasks/pushNotificationConfig/set',
      'tasks/pushNotificationConfig/list',
      'tasks/pushNotificationConfig/delete',
      'nope/nope',
    );
    const parts = fc.constantFrom<unknown[]>(
      [{ kind: 'text', text: 'hi' }],
      [{ kind: 'data', data: { schema: 'support.ticket/1', order_id: 'A1', issue: 'refund' } }],
      [{ kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', bytes: 'aGVsbG8=' } }],
      [{ kind: 'file', file: { uri: 'https://example.com/a.pdf', bytes: 'aGVsbG8=' } }],
      [{ kind: 'file', file: { bytes: 'not base64!' } }],
    );
    const doc = fc.tuple(method, parts).chain(([m, p]) => {
      const template = rpcMessage();
      template.method = m;
      template.params.message.parts = p as typeof template.params.message.parts;
      return mutated(template, paths);
    });
    await fc.assert(
      fc.asyncProperty(encodedBody(doc), transport, async (body, tr) => {
        const req = request(runtimePort, 'POST', '/', body, tr);
        const { status, body: answer } = await exchange('json-rpc', runtimePort, req);
        if (status === 200 && !Array.isArray(answer)) {
          const rpc = answer as { jsonrpc?: string; result?: unknown; error?: { code?: unknown } };
          expect(rpc.jsonrpc).toBe('2.0');
          expect(rpc.result !== undefined || typeof rpc.error?.code === 'number').toBe(true);
        } else if (!Array.isArray(answer)) {
          expect(typeof (answer as { error?: { code?: unknown } }).error?.code).toBe('number'); // refusals too
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  }, 120_000);

  it('/api/v1 answers every input in the management envelope', async () => {
    const route = fc.oneof(
      fc.constantFrom(
        '/api/v1/status',
        '/status',
        '/api/v1/card/url',
        '/api/v1/memory/config',
        '/api/v1/memory/threads',
        '/api/v1/memory/migrate-agent-id',
        '/api/v1/registry/reload',
        '/api/v1/registry/metadata',
        '/internal/reload',
        '/graph',
      ),
      segment.map((s) => `/api/v1/memory/threads/${s}/messages`),
      segment.map((s) => `/api/v1/memory/threads/${s}`),
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/api/v1/${s.join('/')}`),
      fc.array(segment, { minLength: 1, maxLength: 2 }).map((s) => `/${s.join('/')}`),
    );
    // Never the destructive call a user makes on purpose (delete all): the thread stored
    // before the campaign must survive it, and migrate never names this runtime's AGENT_ID.
    const query = fc.constantFrom('', '?all=false', '?all=1', '?all=%ZZ', '?x=%', '?all=true&all=true');
    const body = mutated({ url: 'https://agents.example.com/a', summarize: true, window_size: 10, old_id: 'someone-else', new_id: 'x' }, [
      ['url'],
      ['summarize'],
      ['window_size'],
      ['summarize_threshold'],
      ['enabled'],
      ['old_id'],
      ['new_id'],
      ['postgres_dsn'],
    ]);
    const method = fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'HEAD');
    await fc.assert(
      fc.asyncProperty(method, route, query, fc.option(encodedBody(body), { nil: undefined }), transport, async (m, r, q, b, tr) => {
        const req = request(runtimePort, m, `${r}${q}`, m === 'GET' || m === 'HEAD' ? undefined : b, tr);
        const { status, body: answer } = await exchange('management', runtimePort, req);
        if (m === 'HEAD' || status === 204 || r === '/graph' || r === '/healthz') return;
        if (r === '/' && m === 'POST') {
          expect(answer.jsonrpc).toBe('2.0'); // the JSON-RPC endpoint, reached by a random path
        } else if (status >= 400 && (r === '/v1' || r.startsWith('/v1/'))) {
          expect(typeof answer.error?.status).toBe('string'); // A2A 1.0 HTTP+JSON, reached by a random path
        } else if (status >= 400) {
          expect(answer.success).toBe(false);
          expect(typeof answer.error?.code).toBe('string');
          expect(typeof answer.error?.message).toBe('string');
        }
      }),
      { seed: SEED + 1, numRuns: RUNS, endOnFailure: true },
    );
  }, 120_000);

  it('the Playground API answers every input with JSON, errors as {detail: {error, message}}', async () => {
    const id = fc.oneof(
      { weight: 3, arbitrary: fc.constant(fuzzSession) },
      { weight: 1, arbitrary: segment },
      { weight: 1, arbitrary: fc.stringMatching(/^(ses|run)_[0-9A-Z]{26}$/) },
    );
    const route = fc.oneof(
      fc.constantFrom(
        '/sessions',
        '/composer-schema',
        '/graph',
        '/runtime',
        '/compare?left=%ZZ&right=x',
        '/bundles/export',
        '/bundles/import',
        '/sessions?limit=%ZZ',
        '/sessions?cursor=zz&limit=0',
      ),
      id.map((s) => `/sessions/${s}`),
      id.map((s) => `/sessions/${s}/runs`),
      id.map((s) => `/runs/${s}`),
      fc.tuple(id, fc.constantFrom('resume', 'rerun', 'events', 'events?after=-1', 'events?after=%ZZ')).map(([s, a]) => `/runs/${s}/${a}`),
      segment.map((s) => `/blobs/${s}`),
      segment.map((s) => `/source-targets/${s}`),
    );
    const runBody = mutated(
      {
        parts: [
          { kind: 'text', text: 'hello' },
          { kind: 'data', data: { schema: 'support.ticket/1', order_id: 'A1' } },
          { kind: 'file', name: 'a.txt', mime_type: 'text/plain', bytes_base64: 'aGVsbG8=' },
        ],
        metadata: { userId: 'fuzzer' },
        changed_files: [],
      },
      [
        ['parts'],
        ['parts', 0],
        ['parts', 0, 'kind'],
        ['parts', 1, 'data'],
        ['parts', 2, 'bytes_base64'],
        ['parts', 2, 'uri'],
        ['metadata'],
        ['changed_files'],
        ['changed_files', 0],
        ['revision'],
        ['title'],
        ['extra'],
      ],
    );
    const method = fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS');
    await fc.assert(
      fc.asyncProperty(method, route, fc.option(encodedBody(runBody), { nil: undefined }), transport, async (m, r, b, tr) => {
        // Never the baseline session or run: those must come through unchanged. The fuzz
        // session stays too, so run creation keeps being exercised.
        fc.pre(!(m === 'DELETE' && r === `/sessions/${fuzzSession}`));
        const req = request(studioPort, m, `/api/playground/v1${r}`, m === 'GET' ? undefined : b, tr);
        const { status, body: answer } = await exchange('playground', studioPort, req);
        if (status >= 400) {
          expect(typeof answer.detail?.error).toBe('string');
          expect(typeof answer.detail?.message).toBe('string');
        }
      }),
      { seed: SEED + 2, numRuns: RUNS, endOnFailure: true },
    );
  }, 180_000);

  it('after the campaign: the runtime process never exited, and what was stored before reads back the same', async () => {
    const status = t.studio.runtime.status();
    expect(status?.pid).toBe(runtimePid);
    expect(status?.restarts).toBe(0);
    const url = (await t.studio.runtime.waitReady(5_000))!;
    expect(await (await fetch(`${url}api/v1/memory/threads/${BASELINE_CONTEXT}/messages`)).json()).toEqual(baseline.thread);
    expect((await t.call('GET', `/runs/${baseline.runId}`)).body).toEqual(baseline.run);
    expect((await t.call('GET', `/sessions/${baseline.session}`)).status).toBe(200);
    // The conversation still continues: a follow-up on the stored thread completes.
    const follow = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...rpcMessage(BASELINE_CONTEXT), id: 2 }),
    });
    expect(((await follow.json()) as { result?: { status?: { state?: string } } }).result?.status?.state).toBe('completed');
  });
});
