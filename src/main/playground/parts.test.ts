import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { a2aToTagged, inputToTagged, taggedToA2A } from './parts.ts';
import { storableMetadata } from './service.ts';
import { BlobStore } from './store/blobs.ts';

const blobs = new BlobStore(fs.mkdtempSync(path.join(os.tmpdir(), 'pg-parts-')));

describe('parts', () => {
  it('stores inline bytes content-addressed and keeps uris as references', () => {
    const bytes = Buffer.from('a small file');
    const { parts, blobs: stored } = inputToTagged(
      [
        { kind: 'text', text: 'hi' },
        { kind: 'data', data: { schema: 'x/1', a: 1 } },
        { kind: 'file', name: 'a.txt', mime_type: 'text/plain', bytes_base64: bytes.toString('base64') },
        { kind: 'file', uri: 'https://example.com/big.pdf' },
      ],
      blobs,
    );
    expect(parts[2]).toEqual({ kind: 'file', source: 'inline', sha256: BlobStore.hash(bytes), size: bytes.length, name: 'a.txt', mime_type: 'text/plain' });
    expect(parts[3]).toEqual({ kind: 'file', source: 'uri', uri: 'https://example.com/big.pdf', availability: 'external', replay: 'by_reference' });
    expect(stored).toEqual([{ sha256: BlobStore.hash(bytes), size: bytes.length }]);
    const wire = taggedToA2A(parts, blobs);
    expect(wire[2]).toEqual({ kind: 'file', file: { bytes: bytes.toString('base64'), name: 'a.txt', mimeType: 'text/plain' } });
    expect(wire[3]).toEqual({ kind: 'file', file: { uri: 'https://example.com/big.pdf' } });
  });

  it('turns received parts into tagged parts', () => {
    const out = a2aToTagged(
      [
        { kind: 'text', text: 't' },
        { kind: 'file', file: { bytes: Buffer.from('x').toString('base64'), mimeType: 'text/plain' } },
        { kind: 'file', file: { uri: 'file:///tmp/x' } },
      ],
      blobs,
    );
    expect(out.parts.map((p) => (p.kind === 'file' ? p.source : p.kind))).toEqual(['text', 'inline', 'uri']);
    expect(out.blobs).toHaveLength(1);
  });

  it('never stores the reserved metadata key', () => {
    expect(storableMetadata({ userId: 'u', 'svc.playground': { capture_token: 'x' } })).toEqual({ userId: 'u' });
  });
});
