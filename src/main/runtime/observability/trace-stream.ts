// The JetStream stream the NATS trace sink publishes to (docs/runtime-traces.md, "NATS"): created
// with the configured limits (TRACE_NATS_MAX_AGE, TRACE_NATS_MAX_BYTES, TRACE_NATS_MAX_MSGS;
// settings-values.ts) and the discard-old policy; an existing stream with other limits is
// updated to them, with a log line saying what changed. Its other settings are left as found.
import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { TraceStreamLimits } from '../settings-values.ts';

const NANOS_PER_SECOND = 1_000_000_000;
/** How long JetStream remembers a message id (the retry after a lost ack is stored once); at most the max age. */
const DUPLICATE_WINDOW_SECONDS = 120;

/** The limits as JetStream stream fields. */
export function streamLimits(limits: TraceStreamLimits): Pick<StreamConfig, 'max_age' | 'max_bytes' | 'max_msgs' | 'discard'> {
  return { max_age: limits.maxAgeSeconds * NANOS_PER_SECOND, max_bytes: limits.maxBytes, max_msgs: limits.maxMsgs, discard: DiscardPolicy.Old };
}

/** Creates `name` capturing `subjects`, or brings an existing stream's limits to `limits`. */
export async function ensureTraceStream(
  jsm: JetStreamManager,
  name: string,
  subjects: string,
  limits: TraceStreamLimits,
  log: Pick<Logger, 'info'>,
): Promise<void> {
  const wanted = streamLimits(limits);
  let config: StreamConfig;
  try {
    config = (await jsm.streams.info(name)).config;
  } catch (err) {
    if (!(err instanceof JetStreamApiError) || err.code !== JetStreamApiCodes.StreamNotFound) throw err;
    const window = limits.maxAgeSeconds > 0 ? Math.min(DUPLICATE_WINDOW_SECONDS, limits.maxAgeSeconds) : DUPLICATE_WINDOW_SECONDS;
    await jsm.streams.add({ name, subjects: [subjects], duplicate_window: window * NANOS_PER_SECOND, ...wanted });
    log.info({ stream: name, ...wanted }, `NATS trace stream ${name} created`);
    return;
  }
  const changed = (Object.keys(wanted) as (keyof typeof wanted)[]).filter((k) => config[k] !== wanted[k]);
  if (changed.length === 0) return;
  const update = { ...wanted };
  // JetStream refuses a duplicate window longer than the max age.
  const window = limits.maxAgeSeconds > 0 && config.duplicate_window > wanted.max_age ? { duplicate_window: wanted.max_age } : {};
  await jsm.streams.update(name, { ...update, ...window });
  const was = Object.fromEntries(changed.map((k) => [k, config[k]]));
  log.info({ stream: name, was, now: wanted }, `NATS trace stream ${name}: limits updated (${changed.join(', ')}) to the configured ones`);
}
