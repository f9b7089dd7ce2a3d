// A local OTLP/HTTP trace receiver, as a collector would be: POST /v1/traces with either
// protobuf (application/x-protobuf) or JSON (application/json) bodies. Protobuf is decoded
// here from the wire format of opentelemetry-proto's ExportTraceServiceRequest (field
// numbers from trace/v1/trace.proto and common/v1/common.proto). It can go down (its port
// refuses connections) and come back on the same port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  status: { code: number; message: string };
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  requests: { contentType: string; headers: http.IncomingHttpHeaders }[];
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

// --- protobuf wire format ---
class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done() {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  tag(): [number, number] {
    const t = Number(this.varint());
    return [t >>> 3, t & 7];
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  fixed64(): bigint {
    const v = this.buf.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`wire type ${wire}`);
  }
}

function fields(buf: Buffer, on: (field: number, wire: number, r: Reader) => void): void {
  const r = new Reader(buf);
  while (!r.done) {
    const [f, w] = r.tag();
    const before = r.pos;
    on(f, w, r);
    if (r.pos === before) r.skip(w);
  }
}

function anyValue(buf: Buffer): unknown {
  let v: unknown = null;
  fields(buf, (f, w, r) => {
    if (f === 1) v = r.bytes().toString('utf8');
    else if (f === 2) v = r.varint() !== 0n;
    else if (f === 3) v = Number(BigInt.asIntN(64, r.varint()));
    else if (f === 4) v = r.buf.readDoubleLE((r.pos += 8) - 8);
    else if (f === 5) {
      const arr: unknown[] = [];
      fields(r.bytes(), (g, _w, rr) => g === 1 && arr.push(anyValue(rr.bytes())));
      v = arr;
    } else r.skip(w);
  });
  return v;
}

function keyValue(buf: Buffer, into: Record<string, unknown>): void {
  let key = '';
  let value: unknown = null;
  fields(buf, (f, _w, r) => {
    if (f === 1) key = r.bytes().toString('utf8');
    else if (f === 2) value = anyValue(r.bytes());
  });
  into[key] = value;
}

function protoSpan(buf: Buffer, resource: Record<string, unknown>): ReceivedSpan {
  const s: ReceivedSpan = {
    traceId: '',
    spanId: '',
    parentSpanId: '',
    name: '',
    kind: 0,
    startNs: 0n,
    endNs: 0n,
    attributes: {},
    events: [],
    status: { code: 0, message: '' },
    resource,
  };
  fields(buf, (f, _w, r) => {
    if (f === 1) s.traceId = r.bytes().toString('hex');
    else if (f === 2) s.spanId = r.bytes().toString('hex');
    else if (f === 4) s.parentSpanId = r.bytes().toString('hex');
    else if (f === 5) s.name = r.bytes().toString('utf8');
    else if (f === 6) s.kind = Number(r.varint());
    else if (f === 7) s.startNs = r.fixed64();
    else if (f === 8) s.endNs = r.fixed64();
    else if (f === 9) keyValue(r.bytes(), s.attributes);
    else if (f === 11) {
      const ev = { name: '', attributes: {} as Record<string, unknown> };
      fields(r.bytes(), (g, _w2, rr) => {
        if (g === 2) ev.name = rr.bytes().toString('utf8');
        else if (g === 3) keyValue(rr.bytes(), ev.attributes);
      });
      s.events.push(ev);
    } else if (f === 15)
      fields(r.bytes(), (g, _w2, rr) => {
        if (g === 2) s.status.message = rr.bytes().toString('utf8');
        else if (g === 3) s.status.code = Number(rr.varint());
      });
  });
  return s;
}

export function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  fields(body, (f, _w, r) => {
    if (f !== 1) return;
    const rs = r.bytes();
    const resource: Record<string, unknown> = {};
    const scopes: Buffer[] = [];
    fields(rs, (g, _w2, rr) => {
      if (g === 1) fields(rr.bytes(), (h, _w3, r3) => h === 1 && keyValue(r3.bytes(), resource));
      else if (g === 2) scopes.push(rr.bytes());
    });
    for (const sc of scopes) fields(sc, (g, _w2, rr) => g === 2 && out.push(protoSpan(rr.bytes(), resource)));
  });
  return out;
}

// --- JSON (OTLP/JSON: ids as hex, times as strings, values as {stringValue}...) ---
function jsonValue(v: any): unknown {
  if (!v) return null;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(jsonValue);
  return null;
}
const jsonAttrs = (list: any[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));

export function decodeJson(body: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? [])
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? '',
          name: s.name,
          kind: s.kind,
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          attributes: jsonAttrs(s.attributes),
          events: (s.events ?? []).map((e: any) => ({ name: e.name, attributes: jsonAttrs(e.attributes) })),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          resource,
        });
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = String(req.headers['content-type'] ?? '');
      requests.push({ contentType, headers: req.headers });
      if (req.url !== '/v1/traces' || req.method !== 'POST') return void res.writeHead(404).end();
      if (contentType.includes('json')) {
        spans.push(...decodeJson(JSON.parse(body.toString('utf8'))));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        spans.push(...decodeProtobuf(body));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const down = async () => {
    const closed = new Promise((r) => server.close(r));
    for (const s of sockets) s.destroy();
    await closed;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    down,
    up: () => new Promise<void>((r) => server.listen(port, '127.0.0.1', r)),
    close: () => (server.listening ? down() : Promise.resolve()),
  };
}
