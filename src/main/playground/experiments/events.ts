// GET /experiments/{id}/events (docs/playground-api.md, "Datasets and experiments"): an
// experiment's progress as server-sent events: `progress` with the summary (counts, pass
// rate) when it opens and whenever a case moves (at most every 100 ms), then `end` with the
// final summary, and the stream closes. A finished experiment answers `end` at once.
import type { ServerResponse } from 'node:http';
import type { ExperimentStore } from './store.ts';

const THROTTLE_MS = 100;
const HEARTBEAT_MS = 15_000;

export function streamExperiment(res: ServerResponse, store: ExperimentStore, id: string): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS).unref();
  const close = () => {
    if (closed) return;
    closed = true;
    store.changes.off('change', onChange);
    clearInterval(heartbeat);
    if (timer) clearTimeout(timer);
    res.end();
  };
  const send = () => {
    timer = null;
    if (closed) return;
    const e = store.get(id);
    if (!e) return close();
    const summary = store.summary(e);
    res.write(`event: ${e.status === 'running' ? 'progress' : 'end'}\ndata: ${JSON.stringify(summary)}\n\n`);
    if (e.status !== 'running') close();
  };
  const onChange = (changed: string) => {
    if (changed === id && !timer) timer = setTimeout(send, THROTTLE_MS);
  };
  store.changes.on('change', onChange);
  res.on('close', close);
  send();
}
