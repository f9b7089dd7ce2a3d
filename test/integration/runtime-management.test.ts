// The management API /api/v1/* over HTTP (spec 2.1-2.4, 4.2, 5.2-5.3, 7.1, 9.5): every
// error code with its status, isolation of agents sharing one store, migration, reload.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '@a2a-js/sdk/client';
import { startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.ts';
import { EXAMPLE, REPO, copyExample, rawRpc, sendParams, startTestRuntime, tempDir, type TestRuntime } from './helpers/runtime.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

/** The memory-store backends the thread endpoints are proven on (docs/deployment.md): the same tests,
 * on the SQLite file in the data dir and on PostgreSQL in a fresh schema. */
function storeBackend(name: 'sqlite' | 'postgres') {
  const b = {
    name,
    env: {} as Record<string, string>,
    async setup() {
      if (name !== 'postgres') return;
      await ensurePostgres();
      b.env = { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: newSchema('mgmt') };
    },
    async teardown() {
      if (b.env.POSTGRES_SCHEMA) await dropSchema(b.env.POSTGRES_SCHEMA);
    },
  };
  return b;
}
const BACKENDS = [storeBackend('sqlite'), storeBackend('postgres')];

interface Envelope {
  status: number;
  body: { success: boolean; data: any; error: { code: string; message: string; [k: string]: unknown } | null };
}

async function call(base: string, method: string, p: string, body?: unknown, raw?: string): Promise<Envelope> {
  const res = await fetch(new URL(p.replace(/^\//, ''), base), {
    method,
    headers: body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {},
    body: raw ?? (body !== undefined ? JSON.stringify(body) : undefined),
  });
  return { status: res.status, body: (await res.json()) as Envelope['body'] };
}

function expectError(r: Envelope, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(r.body.success).toBe(false);
  expect(r.body.data).toBeNull();
  expect(r.body.error?.code).toBe(code);
  expect(typeof r.body.error?.message).toBe('string');
}

async function converse(rt: TestRuntime, texts: string[]): Promise<string> {
  let contextId: string | undefined;
  for (const text of texts) {
    const res = (await rt.client.sendMessage(sendParams(text, contextId ? { contextId } : {}))) as any;
    contextId = res.result.contextId;
  }
  return contextId!;
}

describe('status, card URL and the envelope', () => {
  let rt: TestRuntime;
  let projectDir: string;
  beforeAll(async () => {
    projectDir = copyExample('mgmt');
    fs.writeFileSync(
      path.join(projectDir, '.env'),
      '# deployment settings\nAGENT_ID=from-file\nPUBLIC_AGENT_URL=https://old.example.com/a2a\n\n# keep me\nSTAGE_TIMING=true\n',
    );
    rt = await startTestRuntime({ projectDir, env: { AGENT_ID: 'mgmt-agent' } });
  });
  afterAll(async () => rt?.close());

  it('GET /api/v1/status and the legacy /status report agent_id, mcp and a2a with request counts', async () => {
    await rt.client.sendMessage(sendParams('How do I reset my password?'));
    // unknown methods are counted together, so a client cannot grow the counters at will
    for (const method of ['made/up-1', 'made/up-2']) await rawRpc(rt.url, { jsonrpc: '2.0', id: 1, method, params: {} });
    for (const p of ['/api/v1/status', '/status']) {
      const r = await call(rt.url, 'GET', p);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ success: true, error: null });
      expect(r.body.data.agent_id).toBe('mgmt-agent');
      expect(r.body.data.thread_management).toEqual({ state: 'on', agent_id: 'mgmt-agent' });
      expect(r.body.data.mcp).toEqual({ servers: [], connected: 0, total: 0 });
      expect(r.body.data.a2a).toMatchObject({ card_url: 'https://old.example.com/a2a', protocol_version: '0.3.0', streaming: true });
      expect(r.body.data.a2a.requests['message/send']).toBeGreaterThanOrEqual(1);
      expect(r.body.data.a2a.requests.other).toBe(2);
      expect(Object.keys(r.body.data.a2a.requests).filter((m) => m.startsWith('made/'))).toEqual([]);
      expect(r.body.data.a2a.invocations.completed).toBeGreaterThanOrEqual(1);
    }
  });

  it('answers an unknown /api/v1 route with 404 in the envelope', async () => {
    expectError(await call(rt.url, 'GET', '/api/v1/nope'), 404, 'NOT_FOUND');
  });

  it('PATCH /api/v1/card/url validates, applies at once and rewrites only PUBLIC_AGENT_URL in .env', async () => {
    expectError(await call(rt.url, 'PATCH', '/api/v1/card/url', undefined, '{"url": '), 400, 'INVALID_BODY');
    expectError(await call(rt.url, 'PATCH', '/api/v1/card/url', {}), 400, 'INVALID_PARAM');
    expectError(await call(rt.url, 'PATCH', '/api/v1/card/url', { url: 42 }), 400, 'INVALID_PARAM');
    expectError(await call(rt.url, 'PATCH', '/api/v1/card/url', { url: 'ftp://x.example.com' }), 400, 'INVALID_PARAM');
    expectError(await call(rt.url, 'PATCH', '/api/v1/card/url', { url: '/relative' }), 400, 'INVALID_PARAM');
    const r = await call(rt.url, 'PATCH', '/api/v1/card/url', { url: 'https://new.example.com/agent' });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      url: 'https://new.example.com/agent',
      previous_url: 'https://old.example.com/a2a',
      persisted: true,
      env_file: true,
      source: 'runtime_settings',
    });
    const card: any = await (await fetch(`${rt.url}.well-known/agent-card.json`)).json();
    expect(card.url).toBe('https://new.example.com/agent');
    expect((await call(rt.url, 'GET', '/api/v1/card/url')).body.data).toEqual({ url: 'https://new.example.com/agent', source: 'runtime_settings' });
    expect(fs.readFileSync(path.join(projectDir, '.env'), 'utf8')).toBe(
      '# deployment settings\nAGENT_ID=from-file\nPUBLIC_AGENT_URL=https://new.example.com/agent\n\n# keep me\nSTAGE_TIMING=true\n',
    );
  });

  it('keeps a change without an environment file (persisted in the store, env_file:false)', async () => {
    const plain = await startTestRuntime();
    try {
      const r = await call(plain.url, 'PATCH', '/api/v1/card/url', { url: 'http://agents.local:8080/' });
      expect(r.body.data).toMatchObject({ url: 'http://agents.local:8080/', previous_url: plain.url, persisted: true, env_file: false });
    } finally {
      await plain.close();
    }
  });

  it('GET /api/v1/memory/config redacts the DSN password; PATCH refuses immutable fields and bad types', async () => {
    // The machine's PostgreSQL, with a password in the DSN (trust authentication ignores it).
    await ensurePostgres();
    const schema = newSchema('dsn');
    const dsn = new URL(TEST_DSN);
    dsn.password = 's3cret';
    const withDsn = await startTestRuntime({ env: { POSTGRES_DSN: dsn.toString(), POSTGRES_SCHEMA: schema } });
    try {
      const r = await call(withDsn.url, 'GET', '/api/v1/memory/config');
      expect(r.body.data).toEqual({
        enabled: true,
        backend: 'postgres',
        summarize: false,
        window_size: 20,
        summarize_threshold: 40,
        postgres_dsn: dsn.toString().replace('s3cret', '***'),
        sources: { summarize: 'manifest', window_size: 'manifest', summarize_threshold: 'manifest' },
      });
      expect(JSON.stringify(r.body)).not.toContain('s3cret');
      for (const field of ['enabled', 'backend', 'postgres_dsn']) {
        const bad = await call(withDsn.url, 'PATCH', '/api/v1/memory/config', { [field]: false, window_size: 3 });
        expectError(bad, 422, 'IMMUTABLE_FIELD');
      }
      expectError(await call(withDsn.url, 'PATCH', '/api/v1/memory/config', { summarize: 'yes' }), 400, 'INVALID_PARAM');
      expectError(await call(withDsn.url, 'PATCH', '/api/v1/memory/config', { window_size: 0 }), 400, 'INVALID_PARAM');
      expectError(await call(withDsn.url, 'PATCH', '/api/v1/memory/config', { summarize_threshold: 2.5 }), 400, 'INVALID_PARAM');
      expectError(await call(withDsn.url, 'PATCH', '/api/v1/memory/config', undefined, 'not json'), 400, 'INVALID_BODY');
      // nothing changed by the refused requests
      expect((await call(withDsn.url, 'GET', '/api/v1/memory/config')).body.data.window_size).toBe(20);
      const ok = await call(withDsn.url, 'PATCH', '/api/v1/memory/config', { summarize: true, window_size: 6, summarize_threshold: 12 });
      expect(ok.body.data).toMatchObject({
        summarize: true,
        window_size: 6,
        summarize_threshold: 12,
        sources: { summarize: 'runtime_settings', window_size: 'runtime_settings', summarize_threshold: 'runtime_settings' },
      });
    } finally {
      await withDsn.close();
      await dropSchema(schema);
    }
  });

  it('answers MEMORY_DISABLED (404) on every memory endpoint when memory is disabled', async () => {
    const off = await startTestRuntime({ env: { MEMORY_ENABLED: 'false' } });
    try {
      for (const [m, p] of [
        ['GET', '/api/v1/memory/config'],
        ['PATCH', '/api/v1/memory/config'],
        ['GET', '/api/v1/memory/threads'],
        ['GET', '/api/v1/memory/threads/t1/messages'],
        ['DELETE', '/api/v1/memory/threads/t1'],
        ['DELETE', '/api/v1/memory/threads?all=true'],
        ['POST', '/api/v1/memory/migrate-agent-id'],
      ]) {
        expectError(
          await call(off.url, m, p, m === 'GET' || m === 'DELETE' ? undefined : { window_size: 3, old_id: 'a', new_id: 'b' }),
          404,
          'MEMORY_DISABLED',
        );
      }
      // the status says why, with what the thread endpoints answer
      expect((await call(off.url, 'GET', '/api/v1/status')).body.data.thread_management).toMatchObject({
        state: 'off',
        reason: 'MEMORY_DISABLED',
        http_status: 404,
        message: expect.stringContaining('MEMORY_ENABLED=false'),
      });
      // the agent still answers
      const res = (await off.client.sendMessage(sendParams('How do I reset my password?'))) as any;
      expect(res.result.status.state).toBe('completed');
    } finally {
      await off.close();
    }
  });
});

describe('memory settings really change what the model sees', () => {
  let fake: FakeOpenAi;
  let rt: TestRuntime;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    rt = await startTestRuntime({ env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'k', OPENAI_MODEL: 'fake-model', MODEL_MAX_RETRIES: '0' } });
  });
  afterAll(async () => {
    await rt?.close();
    await fake?.close();
  });

  it('window_size limits the messages passed to the model, from the next invocation on', async () => {
    const ctx = await converse(rt, ['hello one', 'hello two', 'hello three']);
    fake.requests.length = 0;
    await rt.client.sendMessage(sendParams('hello four', { contextId: ctx }));
    expect(fake.requests[0].messages.length).toBe(1 + 7); // system + 3 turns x 2 + new question
    await call(rt.url, 'PATCH', '/api/v1/memory/config', { window_size: 2 });
    fake.requests.length = 0;
    await rt.client.sendMessage(sendParams('hello five', { contextId: ctx }));
    const sent = fake.requests[0].messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'assistant', 'user']);
    expect(sent.at(-1)!.content).toBe('hello five');
    await call(rt.url, 'PATCH', '/api/v1/memory/config', { window_size: 20 });
  });

  it('summarize folds older messages into long-term memory once the count passes the threshold', async () => {
    await call(rt.url, 'PATCH', '/api/v1/memory/config', { summarize: true, summarize_threshold: 3, window_size: 2 });
    try {
      const ctx = await converse(rt, ['my name is Ada', 'I ordered ORD-23456']);
      fake.requests.length = 0;
      await rt.client.sendMessage(sendParams('what did I say?', { contextId: ctx }));
      // one call summarises the folded messages, one answers
      expect(fake.requests.length).toBe(2);
      const summarizeCall = fake.requests[0].messages.map((m) => m.content).join('\n');
      expect(summarizeCall).toContain('my name is Ada');
      const answerCall = fake.requests[1].messages;
      expect(answerCall[0].content).toContain('Summary of the earlier conversation');
      expect(answerCall.map((m) => m.content)).not.toContain('my name is Ada');
      // the thread's message list still shows the whole conversation (the transcript)
      const thread = await call(rt.url, 'GET', `/api/v1/memory/threads/${ctx}/messages`);
      expect(thread.body.data.messages.map((m: any) => m.content).filter((c: string) => c.startsWith('my name') || c.startsWith('what did'))).toEqual([
        'my name is Ada',
        'what did I say?',
      ]);
      expect(thread.body.data.messages).toHaveLength(6);
      const del = await call(rt.url, 'DELETE', `/api/v1/memory/threads/${ctx}`);
      expect(del.body.data.deleted.persistent_memory).toBe(1 + 6); // the summary and 6 transcript entries
    } finally {
      await call(rt.url, 'PATCH', '/api/v1/memory/config', { summarize: false, summarize_threshold: 40, window_size: 20 });
    }
  });
});

describe.each(BACKENDS)('threads on $name', (backend) => {
  let rt: TestRuntime;
  beforeAll(async () => {
    await backend.setup();
    rt = await startTestRuntime({ env: { AGENT_ID: 'agent-t', ...backend.env } });
  });
  afterAll(async () => {
    await rt?.close();
    await backend.teardown();
  });

  it('lists this agent’s threads and reads a thread’s messages as human/ai', async () => {
    const ctx = await converse(rt, ['I want a refund', 'ORD-12345']);
    const list = await call(rt.url, 'GET', '/api/v1/memory/threads');
    expect(list.body.data.agent_id).toBe('agent-t');
    expect(list.body.data.threads).toContain(ctx);
    const msgs = await call(rt.url, 'GET', `/api/v1/memory/threads/${ctx}/messages`);
    expect(msgs.body.data.thread_id).toBe(ctx);
    // the agent's question (the interrupt) is part of the conversation
    expect(msgs.body.data.messages.map((m: any) => m.role)).toEqual(['human', 'ai', 'human', 'ai']);
    expect(msgs.body.data.messages[1].content).toMatch(/order/i);
    expect(msgs.body.data.messages[0].content).toBe('I want a refund');
  });

  it('keeps the checkpointed working memory bounded while the transcript keeps every message', async () => {
    const texts = Array.from({ length: 26 }, (_, i) => `message ${i}`);
    const ctx = await converse(rt, texts);
    const tuple = await rt.runtime.context.registry.checkpointer.getTuple({ configurable: { thread_id: ctx, checkpoint_ns: '' } });
    const working = (tuple!.checkpoint.channel_values.messages as unknown[]).length;
    expect(working).toBeLessThanOrEqual(42);
    const listed = await call(rt.url, 'GET', `/api/v1/memory/threads/${ctx}/messages`);
    expect(listed.body.data.messages).toHaveLength(52);
    expect(listed.body.data.messages[0]).toEqual({ role: 'human', content: 'message 0' });
  });

  it('deletes one thread with all its data; an unknown thread is THREAD_NOT_FOUND', async () => {
    const ctx = await converse(rt, ['hello']);
    const del = await call(rt.url, 'DELETE', `/api/v1/memory/threads/${ctx}`);
    expect(del.status).toBe(200);
    expect(del.body.data.deleted.checkpoints).toBeGreaterThan(0);
    expect(del.body.data.deleted.checkpoint_blobs).toBeGreaterThan(0);
    expectError(await call(rt.url, 'GET', `/api/v1/memory/threads/${ctx}/messages`), 404, 'THREAD_NOT_FOUND');
    expectError(await call(rt.url, 'DELETE', `/api/v1/memory/threads/${ctx}`), 404, 'THREAD_NOT_FOUND');
  });

  it('needs all=true to delete every thread, and a thread id where one is expected', async () => {
    expectError(await call(rt.url, 'DELETE', '/api/v1/memory/threads'), 400, 'INVALID_PARAM');
    expectError(await call(rt.url, 'DELETE', '/api/v1/memory/threads?all=yes'), 400, 'INVALID_PARAM');
    expectError(await call(rt.url, 'GET', '/api/v1/memory/threads/%20/messages'), 400, 'MISSING_THREAD_ID');
    expectError(await call(rt.url, 'GET', '/api/v1/memory/threads//messages'), 400, 'MISSING_THREAD_ID');
  });

  it('validates migrate-agent-id bodies', async () => {
    expectError(await call(rt.url, 'POST', '/api/v1/memory/migrate-agent-id', { old_id: 'x' }), 400, 'INVALID_PARAM');
    expectError(await call(rt.url, 'POST', '/api/v1/memory/migrate-agent-id', { old_id: 'x', new_id: 5 }), 400, 'INVALID_PARAM');
    expectError(await call(rt.url, 'POST', '/api/v1/memory/migrate-agent-id', undefined, '[1,2]'), 400, 'INVALID_BODY');
  });

  it('answers AGENT_ID_REQUIRED (409) on thread operations when AGENT_ID is unset or empty', async () => {
    const anon = await startTestRuntime({ env: { AGENT_ID: '', ...backend.env } });
    try {
      for (const [m, p] of [
        ['GET', '/api/v1/memory/threads'],
        ['GET', '/api/v1/memory/threads/t/messages'],
        ['DELETE', '/api/v1/memory/threads/t'],
        ['DELETE', '/api/v1/memory/threads?all=true'],
        ['POST', '/api/v1/memory/migrate-agent-id'],
      ]) {
        expectError(await call(anon.url, m, p, m === 'POST' ? { old_id: 'a', new_id: 'b' } : undefined), 409, 'AGENT_ID_REQUIRED');
      }
      // GET /api/v1/status says thread management is off and why, in the endpoints' own words
      const threads = await call(anon.url, 'GET', '/api/v1/memory/threads');
      const status = await call(anon.url, 'GET', '/api/v1/status');
      expect(status.body.data.thread_management).toEqual({
        state: 'off',
        reason: 'AGENT_ID_REQUIRED',
        http_status: 409,
        message: threads.body.error!.message,
      });
      expect(status.body.data.thread_management.message).toMatch(/AGENT_ID is not set.*\.env/);
    } finally {
      await anon.close();
    }
  });
});

describe.each(BACKENDS)('two runtime processes with different AGENT_IDs sharing one store ($name)', (backend) => {
  const children: ChildProcess[] = [];
  let dataDir: string;
  let a: { url: string; client: A2AClient };
  let b: { url: string; client: A2AClient };

  async function spawnRuntime(agentId: string) {
    const child = spawn(process.execPath, [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', EXAMPLE, '--port', '0', '--data-dir', dataDir], {
      env: { ...process.env, AGENT_ID: agentId, SCRIPTED_DELAY_MS: '0', LOG_LEVEL: 'warn', ...backend.env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /ready at (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`runtime exited ${code}`)));
    });
    return { url, client: await A2AClient.fromCardUrl(`${url}.well-known/agent-card.json`) };
  }

  async function threadOn(rt: { client: A2AClient }, text: string): Promise<string> {
    const res = (await rt.client.sendMessage(sendParams(text))) as any;
    return res.result.contextId;
  }

  beforeAll(async () => {
    await backend.setup();
    dataDir = tempDir('shared-store');
    [a, b] = await Promise.all([spawnRuntime('agent-a'), spawnRuntime('agent-b')]);
  });
  afterAll(async () => {
    await Promise.all(children.splice(0).map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : (c.once('exit', r), c.kill('SIGTERM'))))));
    await backend.teardown();
  });

  it('isolates list, read, delete-all and ownership; migration moves threads atomically', async () => {
    const a1 = await threadOn(a, 'hello from a');
    const a2 = await threadOn(a, 'How do I reset my password?');
    const b1 = await threadOn(b, 'hello from b');

    expect((await call(a.url, 'GET', '/api/v1/memory/threads')).body.data.threads.sort()).toEqual([a1, a2].sort());
    expect((await call(b.url, 'GET', '/api/v1/memory/threads')).body.data.threads).toEqual([b1]);
    expectError(await call(b.url, 'GET', `/api/v1/memory/threads/${a1}/messages`), 403, 'FORBIDDEN');
    expectError(await call(b.url, 'DELETE', `/api/v1/memory/threads/${a1}`), 403, 'FORBIDDEN');
    // B cannot write to A's thread either
    const hijack = (await b.client.sendMessage(sendParams('mine now', { contextId: a1 }))) as any;
    expect(hijack.result.status.state).toBe('failed');

    const delB = await call(b.url, 'DELETE', '/api/v1/memory/threads?all=true');
    expect(delB.body.data.agent_id).toBe('agent-b');
    expect(delB.body.data.deleted.checkpoints).toBeGreaterThan(0);
    expect(delB.body.data.deleted.persistent_memory).toBe(2); // b1's transcript: one question, one answer
    expect((await call(a.url, 'GET', '/api/v1/memory/threads')).body.data.threads.length).toBe(2);
    expect((await call(a.url, 'GET', `/api/v1/memory/threads/${a1}/messages`)).body.data.messages[0].content).toBe('hello from a');

    const mig = await call(b.url, 'POST', '/api/v1/memory/migrate-agent-id', { old_id: 'agent-a', new_id: 'agent-b' });
    expect(mig.body.data).toEqual({ old_id: 'agent-a', new_id: 'agent-b', migrated_threads: 2 });
    expect((await call(a.url, 'GET', '/api/v1/memory/threads')).body.data.threads).toEqual([]);
    expect((await call(b.url, 'GET', '/api/v1/memory/threads')).body.data.threads.sort()).toEqual([a1, a2].sort());
    const moved = await call(b.url, 'GET', `/api/v1/memory/threads/${a2}/messages`);
    expect(moved.body.data.messages[0].content).toBe('How do I reset my password?');
    expect((await call(b.url, 'POST', '/api/v1/memory/migrate-agent-id', { old_id: 'agent-a', new_id: 'agent-b' })).body.data.migrated_threads).toBe(0);
  });
});

describe('registry metadata and hot reload', () => {
  it('is not registered without INTERNAL_RUNTIME_CONTROL_ENABLED', async () => {
    const rt = await startTestRuntime();
    try {
      expectError(await call(rt.url, 'GET', '/api/v1/registry/metadata'), 404, 'NOT_FOUND');
      expectError(await call(rt.url, 'POST', '/api/v1/registry/reload'), 404, 'NOT_FOUND');
      expect((await fetch(`${rt.url}internal/runtime-metadata`)).status).toBe(404);
      expect((await fetch(`${rt.url}internal/reload`, { method: 'POST' })).status).toBe(404);
    } finally {
      await rt.close();
    }
  });

  it('lists components, reloads only on change, keeps the old generation on a bad edit, and lets in-flight runs finish', async () => {
    const dir = copyExample('reload');
    const rt = await startTestRuntime({ projectDir: dir, env: { INTERNAL_RUNTIME_CONTROL_ENABLED: 'true' } });
    try {
      const meta = await call(rt.url, 'GET', '/api/v1/registry/metadata');
      expect(meta.body.data.generation).toBe(1);
      const kinds = new Set(meta.body.data.components.map((c: any) => c.kind));
      for (const k of ['manifest', 'graph', 'module', 'prompt', 'contract', 'evaluator']) expect(kinds).toContain(k);
      const prompt = meta.body.data.components.find((c: any) => c.kind === 'prompt');
      expect(prompt).toMatchObject({ name: 'system', file: 'prompts/system.md', version: 1 });
      expect(prompt.hash).toMatch(/^[0-9a-f]{64}$/);
      expect((await call(rt.url, 'GET', '/internal/runtime-metadata')).body.data.generation).toBe(1);

      const same = await call(rt.url, 'POST', '/api/v1/registry/reload');
      expect(same.body.data).toMatchObject({ reloaded: false, generation: 1, changed: [] });

      // a slow invocation in flight on generation 1
      const slow = (await rt.client.sendMessage(
        sendParams('How do I reset my password?', {}, { configuration: { blocking: false }, metadata: { scriptedDelayMs: 150, scriptedChunks: 8 } }),
      )) as any;

      fs.appendFileSync(path.join(dir, 'prompts/system.md'), '\nAlways sign as "The Support Desk".\n');
      const changed = await call(rt.url, 'POST', '/internal/reload');
      expect(changed.body.data).toMatchObject({ reloaded: true, generation: 2, previous_generation: 1 });
      expect(changed.body.data.changed).toEqual([expect.objectContaining({ kind: 'prompt', name: 'system', change: 'modified' })]);
      const after = await call(rt.url, 'GET', '/api/v1/registry/metadata');
      expect(after.body.data.components.find((c: any) => c.kind === 'prompt').version).toBe(2);

      const skills = path.join(dir, 'src/skills.ts');
      const good = fs.readFileSync(skills, 'utf8');
      fs.writeFileSync(skills, good + '\nexport const broken = ;\n');
      const bad = await call(rt.url, 'POST', '/api/v1/registry/reload');
      expectError(bad, 409, 'RELOAD_FAILED');
      expect(bad.body.error!.generation).toBe(2);
      expect((bad.body.error!.diagnostics as any[])[0]).toMatchObject({ file: 'src/skills.ts' });
      const still = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as any;
      expect(still.result.status.state).toBe('completed');
      expect(rt.traces.find((e) => e.task_id === still.result.id && e.name === 'invoke.start')!.generation).toBe(2);
      fs.writeFileSync(skills, good);

      // the in-flight run finished on the generation it started with
      for (let i = 0; i < 100; i++) {
        const t = (await rt.client.getTask({ id: slow.result.id })) as any;
        if (t.result.status.state === 'completed') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const end = rt.traces.find((e) => e.task_id === slow.result.id && e.name === 'invoke.end')!;
      expect(end).toMatchObject({ state: 'completed', generation: 1 });

      // concurrent reloads: one runs, the other is told the registry is busy
      fs.appendFileSync(path.join(dir, 'prompts/system.md'), '\nBe brief.\n');
      const [r1, r2] = await Promise.all([call(rt.url, 'POST', '/api/v1/registry/reload'), call(rt.url, 'POST', '/api/v1/registry/reload')]);
      const codes = [r1, r2].map((r) => (r.body.success ? 'ok' : r.body.error!.code)).sort();
      expect(codes).toEqual(['RUNTIME_UNAVAILABLE', 'ok']);
      expect([r1, r2].find((r) => !r.body.success)!.status).toBe(409);
    } finally {
      await rt.close();
    }
  });
});

async function startHttpMcpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { z } = await import('zod');
  const express = (await import('express')).default;
  const app = express();
  app.use(express.json());
  app.post('/mcp', async (req, res) => {
    // stateless: a fresh server and transport per request
    const server = new McpServer({ name: 'http-orders', version: '1.0.0' });
    server.registerTool('track_parcel', { description: 'Tracks a parcel', inputSchema: { orderId: z.string() } }, async ({ orderId }) => ({
      content: [{ type: 'text', text: 'ok' }],
      structuredContent: { orderId, carrier: 'DHL over HTTP' },
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const http = app.listen(0, '127.0.0.1');
  await new Promise((r) => http.once('listening', r));
  const port = (http.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise((r) => http.close(() => r())) };
}

describe('MCP servers', () => {
  it('connects a streamable HTTP MCP server and calls its tool', async () => {
    const mcpServer = await startHttpMcpServer();
    const dir = path.join(REPO, 'test/.tmp', `mcp-http-${Date.now()}`);
    fs.cpSync(path.join(REPO, 'test/fixtures/mcp-agent'), dir, { recursive: true });
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'agent.json'), 'utf8'));
    manifest.mcpServers = [{ name: 'remote', transport: 'http', url: mcpServer.url }];
    fs.writeFileSync(path.join(dir, 'agent.json'), JSON.stringify(manifest, null, 2));
    const rt = await startTestRuntime({ projectDir: dir });
    try {
      const status = await call(rt.url, 'GET', '/api/v1/status');
      expect(status.body.data.mcp.servers).toEqual([expect.objectContaining({ name: 'remote', transport: 'http', state: 'connected', tools: 1 })]);
      const res = (await rt.client.sendMessage(sendParams('ORD-34567'))) as any;
      const data = res.result.artifacts[0].parts.find((p: any) => p.kind === 'data').data;
      expect(data.result).toEqual({ orderId: 'ORD-34567', carrier: 'DHL over HTTP' });
    } finally {
      await rt.close();
      await mcpServer.close();
    }
  });

  it('connects a real stdio MCP server, reports state and tool counts, and the graph calls its tool', async () => {
    const rt = await startTestRuntime({ projectDir: path.join(REPO, 'test/fixtures/mcp-agent') });
    try {
      const status = await call(rt.url, 'GET', '/api/v1/status');
      const servers = status.body.data.mcp.servers;
      expect(servers.find((s: any) => s.name === 'orders')).toMatchObject({ transport: 'stdio', state: 'connected', tools: 1, tool_names: ['track_parcel'] });
      expect(servers.find((s: any) => s.name === 'offline')).toMatchObject({ transport: 'http', state: 'failed', tools: 0 });
      expect(status.body.data.mcp).toMatchObject({ connected: 1, total: 2 });
      const res = (await rt.client.sendMessage(sendParams('ORD-23456'))) as any;
      expect(res.result.status.state).toBe('completed');
      const data = res.result.artifacts[0].parts.find((p: any) => p.kind === 'data').data;
      expect(data).toMatchObject({ tool: 'orders/track_parcel', result: { orderId: 'ORD-23456', carrier: 'PostNord' } });
    } finally {
      await rt.close();
    }
  });
});
