// One delivery of a notification (A2A 0.3.0, "Push Notifications"; 1.0 alike): POST the Task
// object as JSON (for a configuration stored over A2A 1.0, the body that version's renderer
// makes, D-104) to the configured URL, with the configuration's token in
// X-A2A-Notification-Token and its authentication in Authorization. A 2xx answer delivers it;
// a network error, a time-out, 408, 429 and 5xx are tried again later; any other answer
// (redirects included: they are not followed) and a refused address end it.
import http from 'node:http';
import https from 'node:https';
import { authorizationOf, hostOf } from './config.ts';
import { checkedAddresses, pinnedLookup, TargetRefusedError } from './target.ts';
import type { OutboxRow } from '../store/push-store.ts';

export type DeliveryOutcome = { kind: 'delivered' } | { kind: 'retry'; error: string } | { kind: 'refused'; error: string };

/** Our own header beside the spec's: the notification's id, the same on every attempt of it,
 * so a receiver can drop a repeat (a delivery whose answer was lost is sent again). */
export const NOTIFICATION_ID_HEADER = 'X-Agent-Studio-Notification-Id';

/** By A2A version: the notification body for a configuration that version stored, made from the
 * task's JSON as stored (D-104). */
export type NotificationBodies = Readonly<Record<string, (taskJson: string) => string>>;

function bodyOf(row: OutboxRow, bodies: NotificationBodies | undefined): string {
  const render = row.config.version ? bodies?.[row.config.version] : undefined;
  return render ? render(row.body) : row.body;
}

export async function deliverOnce(row: OutboxRow, opts: { allowPrivate: boolean; timeoutMs: number; bodies?: NotificationBodies }): Promise<DeliveryOutcome> {
  let url: URL;
  try {
    url = new URL(row.config.url);
  } catch {
    return { kind: 'refused', error: 'the configured URL does not parse' };
  }
  try {
    // An address literal never goes through `lookup`: it is checked here.
    await checkedAddresses(hostOf(url), opts.allowPrivate);
  } catch (err) {
    return err instanceof TargetRefusedError ? { kind: 'refused', error: err.message } : { kind: 'retry', error: (err as Error).message };
  }
  let body: Buffer;
  try {
    body = Buffer.from(bodyOf(row, opts.bodies));
  } catch (err) {
    return { kind: 'refused', error: `the notification body could not be made: ${(err as Error).message}` };
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(body.length),
    [NOTIFICATION_ID_HEADER]: `${row.id}`,
  };
  if (row.config.token) headers['X-A2A-Notification-Token'] = row.config.token;
  const authorization = authorizationOf(row.config.authentication);
  if (authorization) headers.authorization = authorization;
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<DeliveryOutcome>((resolve) => {
    // Settles once, whichever comes first: the answer's end, an error, the time limit.
    const finish = (outcome: DeliveryOutcome) => {
      clearTimeout(deadline);
      resolve(outcome);
    };
    const req = request(url, { method: 'POST', headers, agent: false, lookup: pinnedLookup(opts.allowPrivate), timeout: opts.timeoutMs }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      res.on('end', () => {
        if (status >= 200 && status < 300) finish({ kind: 'delivered' });
        else if (status === 408 || status === 429 || status >= 500) finish({ kind: 'retry', error: `HTTP ${status}` });
        else finish({ kind: 'refused', error: `HTTP ${status}` });
      });
      res.on('error', (err) => finish({ kind: 'retry', error: err.message }));
      res.on('close', () => finish({ kind: 'retry', error: 'the answer was cut off' }));
    });
    // The whole attempt, answer included, within the time limit (a claim lasts twice as long).
    const late = () => {
      req.destroy();
      finish({ kind: 'retry', error: `no answer within ${opts.timeoutMs} ms` });
    };
    const deadline = setTimeout(late, opts.timeoutMs);
    req.on('timeout', late);
    req.on('error', (err) => finish(err instanceof TargetRefusedError ? { kind: 'refused', error: err.message } : { kind: 'retry', error: err.message }));
    req.end(body);
  });
}
