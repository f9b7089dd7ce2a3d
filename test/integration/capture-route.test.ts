// The trace capture route (docs/playground-api.md "Trace capture", D-108): its common case is
// answered before Express (studio/capture-fast.ts), every other request by the Express route.
// Both must answer alike: the same statuses and error bodies for every body, and the same edge
// refusals. A `charset=utf-8` content type is left to Express, so each body is sent both ways.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPTURE_PATH } from '../../src/shared/runtime-contract.ts';
import { rawRequest, startTestStudio, type TestStudio } from './helpers/playground-studio.ts';

let t: TestStudio;

beforeAll(async () => {
  t = await startTestStudio({ runtimeCommand: false });
});

afterAll(async () => {
  await t?.close();
});

const FAST = 'application/json';
const EXPRESS = 'application/json; charset=utf-8';

function post(body: string, contentType: string, headers: Record<string, string> = {}) {
  const url = `${t.url}${CAPTURE_PATH.slice(1)}`;
  return rawRequest(url, { method: 'POST', headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)), ...headers }, body });
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe('the trace capture route', () => {
  it('answers every body as the Express route does, in the Playground error shape', async () => {
    const event = { name: 'invoke.start', ts: new Date().toISOString() };
    const bodies: [string, number, string][] = [
      [JSON.stringify({ capture_token: 'not-issued', events: [event] }), 404, 'not_found'],
      ['{"events": 3}', 400, 'invalid_request'],
      ['{"capture_token": "x", "events": [], "extra": 1}', 400, 'invalid_request'],
      ['{not json', 400, 'invalid_request'],
      ['"a string"', 400, 'invalid_request'],
      ['[1, 2]', 400, 'invalid_request'],
      ['   ', 400, 'invalid_request'],
      [JSON.stringify({ capture_token: 'x', events: [{ ...event, deep: nested(70) }] }), 400, 'invalid_request'],
      [`\uFEFF${JSON.stringify({ capture_token: 'not-issued', events: [] })}`, 404, 'not_found'],
    ];
    for (const [body, status, error] of bodies) {
      const fast = await post(body, FAST);
      const slow = await post(body, EXPRESS);
      expect(fast.status, body.slice(0, 40)).toBe(status);
      expect(slow.status, body.slice(0, 40)).toBe(status);
      expect(JSON.parse(fast.body), body.slice(0, 40)).toEqual(JSON.parse(slow.body));
      expect(JSON.parse(fast.body).detail.error).toBe(error);
      for (const r of [fast, slow]) {
        expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(r.headers['x-content-type-options']).toBe('nosniff');
        expect(r.headers['x-frame-options']).toBe('DENY');
      }
    }
  });

  it('leaves foreign hosts, cross-site origins and other media types to the edge checks', async () => {
    const body = JSON.stringify({ capture_token: 'not-issued', events: [] });
    const port = t.studio.port;
    expect((await post(body, FAST, { host: `evil.example:${port}` })).status).toBe(403);
    expect((await post(body, FAST, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(body, FAST, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post(body, 'text/plain')).status).toBe(415);
    expect((await post(body, FAST, { 'content-encoding': 'x-unknown' })).status).toBe(415);
    const own = await post(body, FAST, { origin: t.url.replace(/\/$/, ''), host: `localhost:${port}` });
    expect(own.status).toBe(404);
  });
});
