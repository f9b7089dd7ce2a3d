// A request's context follows the work it starts, also into callbacks and promises that
// nobody awaits: where the process-wide failure handler (cli.ts) reads it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { currentRequest, noteRequest, requestContext, type RequestContext } from './request-context.ts';

let server: http.Server | null = null;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

describe('request context', () => {
  it('holds the method, path and what the request learns later, in work it started', async () => {
    const seen: (RequestContext | undefined)[] = [];
    const app = express();
    app.use(requestContext());
    app.post('/rpc', (_req, res) => {
      noteRequest({ rpc_method: 'message/send', rpc_id: 7 });
      setTimeout(() => {
        noteRequest({ task_id: 't-1' });
        void Promise.resolve().then(() => seen.push({ ...currentRequest()! }));
        res.end();
      }, 5);
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server!.once('listening', r));
    const { port } = server.address() as AddressInfo;
    await fetch(`http://127.0.0.1:${port}/rpc`, { method: 'POST' });
    expect(seen).toEqual([{ method: 'POST', path: '/rpc', rpc_method: 'message/send', rpc_id: 7, task_id: 't-1' }]);
    expect(currentRequest()).toBeUndefined();
    noteRequest({ task_id: 'outside' }); // outside any request: nothing to note, no failure
  });
});
