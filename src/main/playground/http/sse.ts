// GET /runs/{run_id}/events (spec 4.3 rule 4; docs/playground-api.md): stored events after the
// cursor, then live ones, with no gap and no duplicate, ending after the terminal
// `run.status`. Closing the connection only stops this stream; the run goes on (spec 3).
//
// Order of work, all of it before the first await:
//   1. subscribe to the bus (live events are buffered while replaying);
//   2. note `upTo` = the run's last appended seq (stored or still pending);
// then replay (after, upTo] in pages from the database and the pending batch, and finally
// forward buffered and live events whose seq is above the last one written. Each event is
// written exactly once because every write advances `last` and nothing <= `last` is sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BusEntry, EventBus } from '../events/bus.ts';
import { endsRun, type EventLog } from '../events/log.ts';

export interface SseOptions {
  bus: EventBus;
  log: EventLog;
  /** True when the run has ended (its terminal event is the last it will ever have). */
  isEnded: (runId: string) => boolean;
  heartbeatMs?: number;
  /** Events per replay page (one socket write each). */
  pageSize?: number;
  /** Open streams of this studio, so a shutting-down studio can end them. */
  open?: Set<ServerResponse>;
}

export function formatEvent(seq: number, kind: string, body: string): string {
  return `id: ${seq}\nevent: ${kind}\ndata: ${body}\n\n`;
}

export async function streamRunEvents(req: IncomingMessage, res: ServerResponse, runId: string, after: number, o: SseOptions): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  o.open?.add(res);

  let last = after;
  let done = false;
  let replaying = true;
  const buffered: BusEntry[] = [];

  const finish = () => {
    if (done) return;
    done = true;
    unsubscribe();
    clearInterval(heartbeat);
    o.open?.delete(res);
    res.end();
  };
  const forward = (e: BusEntry) => {
    if (done || e.seq <= last) return;
    res.write(formatEvent(e.seq, e.kind, e.body));
    last = e.seq;
    if (e.terminal) finish();
  };

  const unsubscribe = o.bus.subscribe(runId, (e) => (replaying ? buffered.push(e) : forward(e)));
  const upTo = o.log.lastSeq(runId);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), o.heartbeatMs ?? 15_000);
  heartbeat.unref();
  // The client went away: stop this stream's work, never the run (spec 3).
  res.on('close', finish);
  req.on('error', finish);

  const pageSize = o.pageSize ?? 2000;
  while (!done && last < upTo) {
    const rows = o.log.read(runId, last, upTo, pageSize);
    if (rows.length === 0) break;
    let chunk = '';
    let terminal = false;
    for (const r of rows) {
      chunk += formatEvent(r.seq, r.kind, r.body);
      last = r.seq;
      if (endsRun(r.kind, r.body)) {
        terminal = true;
        break;
      }
    }
    const flowing = res.write(chunk);
    if (terminal) return finish();
    if (!flowing && !done) {
      await new Promise<void>((resolve) => {
        const go = () => {
          res.off('drain', go);
          res.off('close', go);
          resolve();
        };
        res.on('drain', go);
        res.on('close', go);
      });
    }
  }
  if (done) return;
  replaying = false;
  for (const e of buffered.splice(0)) forward(e);
  // A run that has ended and whose events are all written (or behind the cursor) has
  // nothing more to send.
  if (!done && o.isEnded(runId) && last >= o.log.lastSeq(runId)) finish();
}
