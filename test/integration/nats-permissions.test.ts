// The NATS permissions docs/security.md ("The message broker") gives operators are exactly
// the subjects the code uses: its table equals natsPermissions() (the builders every feature
// publishes and subscribes with), its example `authorization` block grants exactly those for
// support-desk, and every feature works on a nats-server running that block verbatim: the
// trace sink stores events (creating its stream), cluster control carries a card URL and
// follows a task across two replicas, and `agent-studio registry-event` as the registry user
// reloads both replicas, with REGISTRY_EVENTS_SECRET refusing an unsigned event.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import type { Task } from '@a2a-js/sdk';
import { REPO, copyExample, sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { startNats, type TestNats } from './helpers/nats.ts';
import { waitFor } from './helpers/playground-studio.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';
import { natsPermissions, type FeaturePermissions } from '../../src/main/runtime/cluster/nats-subjects.ts';

const run = promisify(execFile);
const doc = fs.readFileSync(path.join(REPO, 'docs/security.md'), 'utf8');
const section = doc.slice(doc.indexOf('## The message broker'), doc.indexOf('\n## ', doc.indexOf('## The message broker') + 5));
const ticks = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** The table's rows: feature -> publish / subscribe subjects, placeholders filled from `values`. */
function table(values: Record<string, string>): Record<string, FeaturePermissions> {
  const fill = (s: string) => s.replace(/<([A-Z_]+)>/g, (_, name: string) => values[name] ?? `<${name}>`);
  const rows = section.split('\n').filter((l) => /^\| .* \| .* \| .* \|$/.test(l) && !l.startsWith('| Feature') && !l.startsWith('|---'));
  const byLabel: Record<string, string> = {
    'Trace sink': 'trace',
    'Cluster control': 'control',
    'Registry change events': 'registry',
    '`agent-studio registry-event`': 'registryEventCommand',
  };
  const out: Record<string, FeaturePermissions> = {};
  for (const row of rows) {
    const [label, publish, subscribe] = row.slice(2, -2).split(' | ');
    if (!(label in byLabel) || !publish.includes('`')) continue;
    out[byLabel[label]] = { publish: ticks(publish).map(fill), subscribe: ticks(subscribe).map(fill) };
  }
  return out;
}

/** The example block's allow lists, per user. */
function exampleBlock(): { conf: string; users: Record<string, FeaturePermissions> } {
  const conf = /```conf\n([\s\S]*?)```/.exec(section)![1];
  const users: Record<string, FeaturePermissions> = {};
  for (const m of conf.matchAll(/user: ([\w-]+)[\s\S]*?publish: \{ allow: \[(.*?)\] \}\s*subscribe: \{ allow: \[(.*?)\] \}/g)) {
    const list = (s: string) => [...s.matchAll(/"([^"]+)"/g)].map((x) => x[1]);
    users[m[1]] = { publish: list(m[2]), subscribe: list(m[3]) };
  }
  return { conf, users };
}

const sorted = (p: FeaturePermissions) => ({ publish: [...new Set(p.publish)].sort(), subscribe: [...new Set(p.subscribe)].sort() });
const union = (...ps: FeaturePermissions[]) => sorted({ publish: ps.flatMap((p) => p.publish), subscribe: ps.flatMap((p) => p.subscribe) });

describe('the NATS permissions in docs/security.md', () => {
  it("the subjects table is the code's, for any prefixes", () => {
    const values = {
      AGENT_ID: 'desk-7',
      TRACE_NATS_PREFIX: 'acme.tr',
      TRACE_NATS_STREAM: 'TR_7',
      CONTROL_NATS_PREFIX: 'acme.ctl',
      REGISTRY_NATS_PREFIX: 'acme.reg',
      NATS_INBOX_PREFIX: '_INBOX_desk-7',
    };
    const code = natsPermissions({
      agentId: values.AGENT_ID,
      inboxPrefix: values.NATS_INBOX_PREFIX,
      trace: { prefix: values.TRACE_NATS_PREFIX, stream: values.TRACE_NATS_STREAM },
      control: { prefix: values.CONTROL_NATS_PREFIX },
      registry: { prefix: values.REGISTRY_NATS_PREFIX },
    });
    const documented = table(values);
    expect(Object.keys(documented).sort()).toEqual(Object.keys(code).sort());
    for (const [feature, p] of Object.entries(code)) expect(sorted(documented[feature]), feature).toEqual(sorted(p));
  });

  it('the example authorization block grants exactly those subjects for support-desk with the defaults', () => {
    const code = natsPermissions({
      agentId: 'support-desk',
      inboxPrefix: '_INBOX',
      trace: { prefix: 'agent-studio.traces', stream: 'AGENT_TRACES' },
      control: { prefix: 'agent-studio.control' },
      registry: { prefix: 'agent-studio.registry' },
    });
    const { users } = exampleBlock();
    expect(sorted(users['agent-runtime'])).toEqual(union(code.trace, code.control, code.registry));
    expect(sorted(users.registry)).toEqual(sorted(code.registryEventCommand));
  });
});

describe('every NATS feature on a nats-server with exactly the documented permissions', () => {
  const schema = newSchema('natsperm');
  const runtimePassword = crypto.randomBytes(12).toString('hex');
  const registryPassword = crypto.randomBytes(12).toString('hex');
  const registrySecret = crypto.randomBytes(32).toString('base64');
  let nats: TestNats;
  let a: TestRuntime;
  let b: TestRuntime;

  beforeAll(async () => {
    await ensurePostgres();
    const conf = exampleBlock().conf.replace('$AGENT_RUNTIME_PASSWORD', `"${runtimePassword}"`).replace('$REGISTRY_PASSWORD', `"${registryPassword}"`);
    nats = await startNats({ config: conf });
    const env = {
      AGENT_ID: 'support-desk',
      MEMORY_BACKEND: 'postgres',
      POSTGRES_DSN: TEST_DSN,
      POSTGRES_SCHEMA: schema,
      TASK_LEASE_MS: '600000',
      NATS_URL: nats.url,
      NATS_USER: 'agent-runtime',
      NATS_PASSWORD: runtimePassword,
      TRACE_SINKS: 'log,nats',
      CLUSTER_CONTROL: 'nats',
      CLUSTER_CONTROL_SECRET: crypto.randomBytes(32).toString('base64'),
      REGISTRY_EVENTS: 'nats',
      REGISTRY_EVENTS_SECRET: registrySecret,
    };
    a = await startTestRuntime({ projectDir: copyExample('perm-a'), env: { ...env, REPLICA_ID: 'perm-a' } });
    b = await startTestRuntime({ projectDir: copyExample('perm-b'), env: { ...env, REPLICA_ID: 'perm-b' } });
    for (const rt of [a, b])
      await waitFor(
        async () => {
          const s = await status(rt);
          return s.cluster_control?.state === 'subscribed' && s.registry_events?.state === 'subscribed' && s.trace_sinks.nats?.state === 'connected';
        },
        15_000,
        'every NATS feature to be up',
      );
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await nats?.stop();
    await dropSchema(schema);
  });

  async function status(rt: TestRuntime): Promise<Record<string, any>> {
    return ((await (await fetch(`${rt.url}api/v1/status`)).json()) as { data: Record<string, any> }).data;
  }

  it('the trace sink creates its stream and stores the events', async () => {
    const r = (await a.client.sendMessage(sendParams('How do I reset my password?'))) as { result: Task };
    expect(r.result.status.state).toBe('completed');
    await waitFor(
      async () => {
        const s = (await status(a)).trace_sinks.nats;
        return s.buffered === 0 && s.published >= a.traces.length;
      },
      15_000,
      'every event stored',
    );
  });

  it('cluster control carries a card URL and follows a task across the replicas', async () => {
    await fetch(new URL('api/v1/card/url', a.url), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: '{"url":"https://agents.example.com/desk"}',
    });
    await waitFor(
      async () => ((await (await fetch(`${b.url}.well-known/agent-card.json`)).json()) as { url: string }).url === 'https://agents.example.com/desk',
      10_000,
      'B to serve the URL',
    );
    const stream = a.client.sendMessageStream(sendParams('Where is my order ORD-23456?', {}, { metadata: { scriptedDelayMs: 100, scriptedChunks: 8 } }));
    const it = stream[Symbol.asyncIterator]();
    const first = (await it.next()).value as Task;
    const followed: string[] = [];
    for await (const event of b.client.resubscribeTask({ id: first.id }))
      followed.push(event.kind === 'status-update' ? `status:${event.status.state}` : event.kind);
    for (let e = await it.next(); !e.done; e = await it.next());
    expect(followed.at(-1)).toBe('status:completed');
  });

  it('agent-studio registry-event as the registry user reloads both replicas; an unsigned event is refused', async () => {
    const env = { ...process.env, NATS_USER: 'registry', NATS_PASSWORD: registryPassword, REGISTRY_EVENTS_SECRET: registrySecret };
    const cli = [path.join(REPO, 'bin/agent-studio.mjs'), 'registry-event', '--nats', nats.url, '--wait', '2000', '--agent', 'support-desk'];
    const r = await run(process.execPath, cli, { env });
    const outcomes = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { replica: string; outcome: string });
    expect(outcomes.map((o) => o.replica).sort()).toEqual(['perm-a', 'perm-b']);
    expect(outcomes.every((o) => o.outcome === 'unchanged')).toBe(true);

    const nc = await connect({ servers: nats.url, user: 'registry', pass: registryPassword });
    try {
      nc.publish('agent-studio.registry.support-desk', JSON.stringify({ agent_id: 'support-desk' }));
      await nc.flush();
      for (const rt of [a, b]) await waitFor(async () => (await status(rt)).registry_events.refused === 1, 10_000, 'the unsigned event to be refused');
    } finally {
      await nc.close();
    }
  });
});
