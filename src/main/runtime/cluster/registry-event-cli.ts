// `agent-studio registry-event --agent ID [--version V] [--component KIND[:NAME]]... [--reason TEXT]
//   [--nats URL] [--prefix agent-studio.registry] [--wait 3000]`: publishes a registry change
// event (docs/runtime-traces.md, "Registry change events") and prints every replica's outcome
// as a JSON line. Exit 0 when at least one replica answered and none failed, 1 when one
// failed, 2 when NATS cannot be reached (or its settings are wrong), 3 when none answered
// within --wait. It connects with the runtime's NATS settings (NATS_USER, NATS_CREDS_FILE,
// NATS_TLS_*...; docs/deployment.md) and signs the event when REGISTRY_EVENTS_SECRET is set.
import { parseArgs } from 'node:util';
import { connect } from '@nats-io/transport-node';
import { createInbox } from '@nats-io/nats-core';
import { UsageError } from '../../cli-args.ts';
import { natsConnectOptions } from './nats.ts';
import { natsSettings, signingSecret } from './nats-settings.ts';
import { registryEventSubject } from './nats-subjects.ts';
import { MessageSigner } from './signing.ts';
import type { RegistryChangeEvent, RegistryEventOutcome } from './registry-events.ts';

export async function runRegistryEventCommand(argv: string[]): Promise<void> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        agent: { type: 'string' },
        version: { type: 'string' },
        component: { type: 'string', multiple: true },
        reason: { type: 'string' },
        nats: { type: 'string' },
        prefix: { type: 'string' },
        wait: { type: 'string' },
      },
      strict: true,
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (!values.agent) throw new UsageError('registry-event needs --agent ID (the AGENT_ID of the replicas to reload)');
  const waitMs = values.wait === undefined ? 3000 : Number(values.wait);
  if (!Number.isInteger(waitMs) || waitMs <= 0) throw new UsageError(`--wait must be a positive number of milliseconds, got '${values.wait}'`);
  const prefix = values.prefix ?? process.env.REGISTRY_NATS_PREFIX ?? 'agent-studio.registry';
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  if (values.nats) env.NATS_URL = values.nats;
  let settings, secret;
  try {
    settings = natsSettings(env);
    secret = signingSecret(env, 'REGISTRY_EVENTS_SECRET', null);
  } catch (err) {
    process.stderr.write(`agent-studio registry-event: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const servers = settings.servers.join(',');
  const nc = await connect({ ...natsConnectOptions(settings), timeout: 5000 }).catch((err: Error) => {
    process.stderr.write(`agent-studio registry-event: cannot connect to NATS at ${servers}: ${err.message}\n`);
    process.exit(2);
  });
  const inbox = createInbox(settings.inboxPrefix);
  const sub = nc.subscribe(inbox);
  const event: RegistryChangeEvent = {
    agent_id: values.agent,
    ...(values.version ? { version: values.version } : {}),
    ...(values.component?.length
      ? { components: values.component.map((c) => ({ kind: c.split(':')[0], ...(c.includes(':') ? { name: c.slice(c.indexOf(':') + 1) } : {}) })) }
      : {}),
    ...(values.reason ? { reason: values.reason } : {}),
    reply_to: inbox,
  };
  await nc.flush();
  const subject = registryEventSubject(prefix, values.agent);
  const body = JSON.stringify(event);
  nc.publish(subject, body, secret ? { headers: new MessageSigner(secret).sign(subject, body) } : undefined);
  const outcomes: RegistryEventOutcome[] = [];
  const timer = setTimeout(() => sub.unsubscribe(), waitMs);
  for await (const m of sub) {
    const o = m.json<RegistryEventOutcome>();
    outcomes.push(o);
    process.stdout.write(`${JSON.stringify(o)}\n`);
  }
  clearTimeout(timer);
  await nc.close();
  if (outcomes.length === 0) {
    process.stderr.write(`agent-studio registry-event: no replica of '${values.agent}' answered within ${waitMs} ms (is REGISTRY_EVENTS=nats set on them?)\n`);
    process.exitCode = 3;
  } else if (outcomes.some((o) => o.outcome === 'failed' || o.outcome === 'invalid')) process.exitCode = 1;
}
