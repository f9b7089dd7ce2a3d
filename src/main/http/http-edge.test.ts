// The pure parts of the HTTP edge: JSON depth, loopback addresses and body-parser error mapping.
import { describe, expect, it } from 'vitest';
import { exceedsDepth, MAX_JSON_DEPTH } from './json-depth.ts';
import { isLoopbackAddress } from './loopback.ts';
import { fromBodyParserError } from './input-error.ts';

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}

describe('exceedsDepth', () => {
  it('counts objects and arrays alike, scalars as no level', () => {
    expect(exceedsDepth(1, 0)).toBe(false);
    expect(exceedsDepth({}, 0)).toBe(true);
    expect(exceedsDepth(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(exceedsDepth(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
  });

  it('measures 100,000 levels without overflowing the stack', () => {
    expect(exceedsDepth(nested(100_000))).toBe(true);
  });

  it('finds the one deep branch among wide shallow ones', () => {
    const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, { x: [1, 2, 3] }]));
    expect(exceedsDepth(wide)).toBe(false);
    expect(exceedsDepth({ ...wide, deep: nested(80) })).toBe(true);
  });
});

describe('isLoopbackAddress', () => {
  it('knows the loopback names and addresses', () => {
    for (const h of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]']) expect(isLoopbackAddress(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.10', 'example.com', '128.0.0.1', 'localhost.example.com']) expect(isLoopbackAddress(h), h).toBe(false);
  });
});

describe('fromBodyParserError', () => {
  it('maps body-parser and zlib failures to 400/413/415, and leaves others alone', () => {
    expect(fromBodyParserError({ type: 'entity.parse.failed' }, '1mb')?.status).toBe(400);
    expect(fromBodyParserError({ type: 'entity.too.large' }, '1mb')?.message).toMatch(/1mb/);
    expect(fromBodyParserError({ type: 'charset.unsupported' }, '1mb')?.status).toBe(415);
    expect(fromBodyParserError({ type: 'encoding.unsupported' }, '1mb')?.status).toBe(415);
    expect(fromBodyParserError({ code: 'Z_DATA_ERROR' }, '1mb')?.code).toBe('invalid_json');
    expect(fromBodyParserError(new Error('boom'), '1mb')).toBeNull();
  });
});
