// What an operator watches (docs/operations.md): the Prometheus metrics at /metrics behind the
// operator credential, one access line per request naming the principal (never its key), an
// audit line for every management change, and the x-runtime-replica header only with
// REPLICA_ID. One real runtime on loopback with caller and operator keys, called through the
// official A2A client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Task } from '@a2a-js/sdk';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { a2aClientWith, sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { dropSchema, newSchema, sql, TEST_DSN } from './helpers/postgres.ts';
import { startNats } from './helpers/nats.ts';

const alice = newKey('alice');
const ops = newKey('ops');

type Line = Record<string, any>;

/** A pino logger whose lines the test reads. */
function capturingLogger(lines: Line[]): pino.Logger {
  return pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
}

/** A sample's value in Prometheus text format, or 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return 0;
}

const scrape = async (url: string) => {
  const res = await fetch(`${url}metrics`, { headers: { authorization: `Bearer ${ops.key}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};

describe('metrics, access and audit lines', () => {
  let rt: TestRuntime;
  const lines: Line[] = [];
  beforeAll(async () => {
    rt = await startTestRuntime({ env: { A2A_API_KEYS: alice.entry, MANAGEMENT_API_KEYS: ops.entry }, logger: capturingLogger(lines) });
  });
  afterAll(async () => rt?.close());

  it('/metrics needs the operator credential: none is 401, a caller key 403', async () => {
    expect((await fetch(`${rt.url}metrics`)).status).toBe(401);
    const caller = await fetch(`${rt.url}metrics`, { headers: { 'x-api-key': alice.key } });
    expect(caller.status).toBe(403);
    expect(((await caller.json()) as { error: { code: string } }).error.code).toBe('OPERATOR_CREDENTIAL_REQUIRED');
  });

  it('counts A2A requests by JSON-RPC method and status, turns by end state, store operations, and process metrics', async () => {
    const before = await scrape(rt.url);
    const client = a2aClientWith(rt.url, { 'x-api-key': alice.key });
    const done = (await client.sendMessage(sendParams('How do I reset my password?'))) as { result: Task };
    expect(done.result.status.state).toBe('completed');
    const paused = (await client.sendMessage(sendParams('I want a refund'))) as { result: Task };
    expect(paused.result.status.state).toBe('input-required');
    await client.getTask({ id: done.result.id });
    const after = await scrape(rt.url);
    const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    const send = { method: 'POST', route: '/', rpc_method: 'message/send', status: '200' };
    expect(delta('agent_runtime_http_requests_total', send)).toBe(2);
    expect(delta('agent_runtime_http_request_duration_seconds_count', send)).toBe(2);
    expect(delta('agent_runtime_http_requests_total', { rpc_method: 'tasks/get', status: '200' })).toBe(1);
    // the two refused /metrics requests of the first test, by route and status
    expect(sample(after, 'agent_runtime_http_requests_total', { method: 'GET', route: '/metrics', status: '401' })).toBe(1);
    expect(delta('agent_runtime_turns_total', { state: 'completed' })).toBe(1);
    expect(delta('agent_runtime_turns_total', { state: 'input-required' })).toBe(1);
    expect(delta('agent_runtime_turn_duration_seconds_count', { state: 'completed' })).toBe(1);
    expect(delta('agent_runtime_store_operation_duration_seconds_count', { backend: 'sqlite', operation: 'tasks.save' })).toBeGreaterThan(0);
    expect(delta('agent_runtime_store_operation_duration_seconds_count', { backend: 'sqlite', operation: 'checkpoint.put' })).toBeGreaterThan(0);
    expect(sample(after, 'agent_runtime_store_errors_total')).toBe(0);
    expect(sample(after, 'agent_runtime_tasks_active')).toBe(0);
    expect(sample(after, 'agent_runtime_tasks_waiting_input')).toBe(1);
    expect(sample(after, 'agent_runtime_outbound_connections_limit')).toBeGreaterThan(0);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    expect(after).toMatch(/^process_resident_memory_bytes \d/m);
    expect(after).not.toContain('agent_runtime_nats_up{'); // no NATS feature on
  });

  it('writes one access line per request with the principal and the request id, never the key', async () => {
    const res = await fetch(rt.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': alice.key, 'x-request-id': 'req-42' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'no-such-task' } }),
    });
    expect(res.headers.get('x-request-id')).toBe('req-42');
    await res.json();
    await expect.poll(() => lines.filter((l) => l.request_id === 'req-42' && l.event === 'access')).toHaveLength(1);
    const line = lines.find((l) => l.request_id === 'req-42')!;
    expect(line).toMatchObject({
      event: 'access',
      method: 'POST',
      path: '/',
      rpc_method: 'tasks/get',
      status: 200,
      principal: 'alice',
      replica: expect.any(String),
    });
    expect(line.latency_ms).toBeGreaterThanOrEqual(0);
    const status = await fetch(`${rt.url}api/v1/status`, { headers: { authorization: `Bearer ${ops.key}` } });
    const id = status.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/); // none sent: a new one
    await expect.poll(() => lines.find((l) => l.request_id === id)).toMatchObject({ path: '/api/v1/status', status: 200, principal: 'ops' });
    expect(JSON.stringify(lines)).not.toContain(alice.key);
    expect(JSON.stringify(lines)).not.toContain(ops.key);
  });

  it('writes an audit line for a management change: who, what, the outcome', async () => {
    const client = a2aClientWith(rt.url, { 'x-api-key': alice.key });
    const t = (await client.sendMessage(sendParams('How do I reset my password?'))) as { result: Task };
    const thread = t.result.contextId;
    const refused = await fetch(`${rt.url}api/v1/memory/threads/${thread}`, { method: 'DELETE' });
    expect(refused.status).toBe(401);
    const del = await fetch(`${rt.url}api/v1/memory/threads/${thread}`, { method: 'DELETE', headers: { authorization: `Bearer ${ops.key}` } });
    expect(del.status).toBe(200);
    const patch = await fetch(`${rt.url}api/v1/memory/config`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ops.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ window_size: 12, postgres_dsn: 'postgresql://u:hunter2@db/x' }),
    });
    expect(patch.status).toBe(422); // IMMUTABLE_FIELD, audited all the same
    await expect.poll(() => lines.filter((l) => l.event === 'audit')).toHaveLength(3);
    const audits = lines.filter((l) => l.event === 'audit');
    const action = 'DELETE /api/v1/memory/threads/:thread_id';
    expect(audits[0]).toMatchObject({ action, target: `thread ${thread}`, status: 401, principal: null });
    expect(audits[1]).toMatchObject({ action, target: `thread ${thread}`, status: 200, principal: 'ops' });
    expect(audits[2]).toMatchObject({
      action: 'PATCH /api/v1/memory/config',
      status: 422,
      principal: 'ops',
      changes: { window_size: 12, postgres_dsn: '***' },
    });
    expect(JSON.stringify(audits)).not.toContain('hunter2');
  });

  it('sends no x-runtime-replica header without REPLICA_ID', async () => {
    expect((await fetch(`${rt.url}healthz`)).headers.get('x-runtime-replica')).toBeNull();
  });
});

it('sends x-runtime-replica when REPLICA_ID is set', async () => {
  const rt = await startTestRuntime({ env: { REPLICA_ID: 'web-7' } });
  try {
    expect((await fetch(`${rt.url}healthz`)).headers.get('x-runtime-replica')).toBe('web-7');
    // a loopback runtime without operator keys serves /metrics to local scrapers
    expect((await fetch(`${rt.url}metrics`)).status).toBe(200);
  } finally {
    await rt.close();
  }
});

it('on PostgreSQL: store operations by backend, and the waiting tasks counted in the database', async () => {
  const schema = newSchema('metrics');
  const rt = await startTestRuntime({ env: { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema } });
  try {
    const paused = (await rt.client.sendMessage(sendParams('I want a refund'))) as { result: Task };
    expect(paused.result.status.state).toBe('input-required');
    const text = await (await fetch(`${rt.url}metrics`)).text();
    expect(sample(text, 'agent_runtime_tasks_waiting_input')).toBe(1);
    expect(sample(text, 'agent_runtime_turns_total', { state: 'input-required' })).toBe(1);
    expect(sample(text, 'agent_runtime_store_operation_duration_seconds_count', { backend: 'postgres', operation: 'checkpoint.put' })).toBeGreaterThan(0);
    // a store that fails: the task table gone, the count fails, is counted, and its last value stays
    await sql(`ALTER TABLE ${schema}.a2a_tasks RENAME TO a2a_tasks_gone`);
    const failing = await (await fetch(`${rt.url}metrics`)).text();
    expect(sample(failing, 'agent_runtime_store_errors_total', { backend: 'postgres', operation: 'store.waitingTaskCount' })).toBe(1);
    expect(sample(failing, 'agent_runtime_tasks_waiting_input')).toBe(1);
  } finally {
    await rt.close();
    await dropSchema(schema);
  }
});

it('agent_runtime_nats_up follows the NATS connection of the trace sink', async () => {
  const nats = await startNats();
  const tag = Math.random().toString(36).slice(2, 8);
  const rt = await startTestRuntime({ env: { TRACE_SINKS: 'nats', NATS_URL: nats.url, TRACE_NATS_STREAM: `M_${tag}`, TRACE_NATS_PREFIX: `m${tag}.traces` } });
  const up = async () => sample(await (await fetch(`${rt.url}metrics`)).text(), 'agent_runtime_nats_up', { feature: 'trace' });
  try {
    await expect.poll(up, { timeout: 10_000 }).toBe(1);
    await nats.stop();
    await expect.poll(up, { timeout: 10_000 }).toBe(0);
  } finally {
    await rt.close();
    await nats.stop();
  }
});
