// Building blocks of the HTTP fuzz campaign (http.fuzz.test.ts): raw requests over node:http
// (so any Host, Content-Encoding or byte sequence can be sent), fast-check arbitraries for
// transport variations, JSON values and the mutation of a valid request, and the checks every
// answer must pass whatever it was asked.
import http from 'node:http';
import zlib from 'node:zlib';
import fc from 'fast-check';

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
}

export interface FuzzResponse {
  status: number;
  contentType: string;
  text: string;
}

/** Sends one request to 127.0.0.1:port and reads the whole answer (an SSE stream to its end). */
export function send(port: number, r: FuzzRequest, timeoutMs = 20_000): Promise<FuzzResponse> {
  return new Promise((resolve, reject) => {
    // As a raw header list, so a header may repeat (two Host headers).
    const raw = Object.entries(r.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.flatMap((x) => [k, x]) : [k, v]));
    const req = http.request({ host: '127.0.0.1', port, method: r.method, path: r.path, headers: raw, setHost: !('host' in r.headers) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no complete answer within ${timeoutMs} ms: ${r.method} ${r.path}`)));
    req.on('error', reject);
    req.end(r.body);
  });
}

/** `{"a":{"a":...1...}}` nested `depth` levels, built as text (JSON.stringify would overflow). */
export function deepJsonText(depth: number, key = 'a'): string {
  return `{"${key}":`.repeat(depth) + '1' + '}'.repeat(depth);
}

/** Stands for a value nested `depth` levels deep until the body is serialised: built as a
 * real object, 5,000 levels would overflow this test's own cloning and stringifying. */
const DEEP = '__fuzz_deep__';
export function deepValue(depth: number): Record<string, unknown> {
  return { [DEEP]: depth };
}

/** JSON text of a value, with every deepValue placeholder expanded. */
export function toJsonText(v: unknown): string {
  return (JSON.stringify(v) ?? 'null').replace(new RegExp(`\\{"${DEEP}":(\\d+)\\}`, 'g'), (_, n: string) => deepJsonText(Number(n)));
}

/** Values that have broken servers before: wrong types, deep nesting, huge and odd strings. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], {}, [[]], '', 0, -1, 1e308, true, '__proto__', { __proto__: { polluted: true } }) },
  { weight: 1, arbitrary: fc.constantFrom(10, 63, 65, 200, 1100, 5000).map(deepValue) },
  { weight: 1, arbitrary: fc.constantFrom('%ZZ', '%', '\u0000', '\ud800', 'x'.repeat(70_000), '../../etc/passwd', '<script>alert(1)</script>') },
);

type Path = (string | number)[];

function setPath(target: unknown, path: Path, value: unknown, remove: boolean): unknown {
  if (path.length === 0) return value;
  const root = structuredClone(target) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = root;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) return root;
    node = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (remove) delete node[last];
  else node[last] = value;
  return root;
}

/** A valid document with one to three of its fields replaced by hostile values or removed. */
export function mutated(template: unknown, paths: Path[]): fc.Arbitrary<unknown> {
  const edit = fc.record({ path: fc.constantFrom(...paths), value: hostileValue, remove: fc.boolean() });
  return fc.array(edit, { minLength: 0, maxLength: 3 }).map((edits) => edits.reduce((doc, e) => setPath(doc, e.path, e.value, e.remove), template));
}

/** A request body; a failing case prints its size and start, not every byte. */
export class Body {
  constructor(readonly bytes: Buffer) {}
  [fc.toStringMethod](): string {
    return `Body(${this.bytes.length} bytes: ${JSON.stringify(this.bytes.subarray(0, 160).toString('utf8'))}${this.bytes.length > 160 ? '...' : ''})`;
  }
}

/** How a body goes over the wire: JSON text, or something that is not quite JSON. */
export function encodedBody(value: fc.Arbitrary<unknown>): fc.Arbitrary<Body> {
  return fc
    .oneof(
      { weight: 8, arbitrary: value.map((v) => Buffer.from(toJsonText(v))) },
      { weight: 1, arbitrary: fc.constantFrom(80, 1100, 5000).map((d) => Buffer.from(deepJsonText(d))) },
      { weight: 1, arbitrary: value.map((v) => Buffer.from(toJsonText(v).slice(0, -1))) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) },
    )
    .map((bytes) => new Body(bytes));
}

export interface Transport {
  contentType: string | null;
  encoding: 'identity' | 'gzip' | 'deflate' | 'br' | 'gzip-corrupt' | 'br-corrupt' | 'unknown';
  host: 'own' | 'localhost' | 'foreign' | 'twice' | 'none';
  origin: 'none' | 'own' | 'foreign' | 'null';
}

export const transport: fc.Arbitrary<Transport> = fc.record({
  contentType: fc.oneof(
    { weight: 10, arbitrary: fc.constant('application/json') },
    {
      weight: 3,
      arbitrary: fc.constantFrom('application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=koi8-x', 'APPLICATION/JSON'),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom<string | null>(
        null,
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json-patch+json',
        '',
      ),
    },
  ),
  encoding: fc.oneof(
    { weight: 12, arbitrary: fc.constant<'identity'>('identity') },
    { weight: 3, arbitrary: fc.constantFrom<Transport['encoding']>('gzip', 'deflate', 'br', 'gzip-corrupt', 'br-corrupt', 'unknown') },
  ),
  host: fc.oneof(
    { weight: 12, arbitrary: fc.constant<'own'>('own') },
    { weight: 3, arbitrary: fc.constantFrom<Transport['host']>('localhost', 'foreign', 'twice', 'none') },
  ),
  origin: fc.oneof(
    { weight: 12, arbitrary: fc.constant<'none'>('none') },
    { weight: 3, arbitrary: fc.constantFrom<Transport['origin']>('own', 'foreign', 'null') },
  ),
});

/** Applies a transport variation to a method, path and body (with `extra` headers). */
export function request(port: number, method: string, path: string, body: Body | undefined, t: Transport, extra: Record<string, string> = {}): FuzzRequest {
  const headers: Record<string, string | string[]> = { ...extra };
  if (t.host === 'own') headers.host = `127.0.0.1:${port}`;
  else if (t.host === 'localhost') headers.host = `localhost:${port}`;
  else if (t.host === 'foreign') headers.host = 'attacker.example';
  else if (t.host === 'twice') headers.host = [`127.0.0.1:${port}`, 'attacker.example'];
  else headers.host = '';
  if (t.origin === 'own') headers.origin = `http://127.0.0.1:${port}`;
  else if (t.origin === 'foreign') headers.origin = 'http://evil.example';
  else if (t.origin === 'null') headers.origin = 'null';
  let payload = body?.bytes;
  if (payload !== undefined) {
    if (t.contentType !== null) headers['content-type'] = t.contentType;
    switch (t.encoding) {
      case 'gzip':
        payload = zlib.gzipSync(payload);
        headers['content-encoding'] = 'gzip';
        break;
      case 'deflate':
        payload = zlib.deflateSync(payload);
        headers['content-encoding'] = 'deflate';
        break;
      case 'br':
        payload = zlib.brotliCompressSync(payload);
        headers['content-encoding'] = 'br';
        break;
      case 'gzip-corrupt':
        payload = Buffer.concat([zlib.gzipSync(payload).subarray(0, 12), Buffer.from('corrupt')]);
        headers['content-encoding'] = 'gzip';
        break;
      case 'br-corrupt':
        headers['content-encoding'] = 'br';
        break;
      case 'unknown':
        headers['content-encoding'] = 'x-fuzz';
        break;
      default:
        break;
    }
    headers['content-length'] = String(payload.length);
  }
  return { method, path, headers, body: payload };
}

/** Path segments, some with broken percent-encoding. */
export const segment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,24}$/) },
  { weight: 1, arbitrary: fc.constantFrom('%ZZ', '%', '%C0', '%E2%82', '..', '%2e%2e', '%00', 'ses_', 'run_', '%F0%9F%98%80', '') },
);

// An HTML error page, a stack frame or a module path.
const LEAKS = /<!doctype|<html|node_modules|(?:\n|\\n)\s+at [\w.<]|\.ts:\d+:\d+/i;

/** What every answer must be, whatever the request: no 5xx, JSON (or an SSE stream of JSON),
 * no HTML, stack or path. Returns the parsed JSON body (or the SSE data items). */
export function checkAnswer(req: FuzzRequest, res: FuzzResponse): unknown {
  const where = `${req.method} ${req.path} -> ${res.status} ${res.text.slice(0, 300)}`;
  if (res.status >= 500) throw new Error(`5xx: ${where}`);
  if (LEAKS.test(res.text)) throw new Error(`an HTML page, stack or path leaked: ${where}`);
  if (res.status === 204 || req.method === 'HEAD') return null;
  if (res.contentType.startsWith('text/event-stream')) {
    return res.text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)) as unknown);
  }
  if (!res.contentType.startsWith('application/json')) throw new Error(`not JSON (${res.contentType || 'no content type'}): ${where}`);
  try {
    return JSON.parse(res.text) as unknown;
  } catch {
    throw new Error(`body is not JSON: ${where}`);
  }
}
