// Conversions between the three shapes a part takes (spec 2.5, 2.6):
//   input part (client JSON)  ->  tagged part (stored on the run)  ->  A2A part (sent)
//   A2A part (received)       ->  tagged part (stored output)
// Inline file bytes go to the content-addressed blob store; the database keeps hash, size,
// name, MIME type and source. A `uri` file is kept as a reference and never downloaded.
import type { Part as A2APart } from '@a2a-js/sdk';
import type { InputPart, TaggedPart } from '../../shared/playground.ts';
import type { BlobStore } from './store/blobs.ts';

export interface StoredBlob {
  sha256: string;
  size: number;
}

export interface ConvertedParts {
  parts: TaggedPart[];
  blobs: StoredBlob[];
}

function fileMeta(name: string | undefined, mime: string | undefined): { name?: string; mime_type?: string } {
  return { ...(name !== undefined ? { name } : {}), ...(mime !== undefined ? { mime_type: mime } : {}) };
}

export function inputToTagged(parts: readonly InputPart[], blobs: BlobStore): ConvertedParts {
  const out: TaggedPart[] = [];
  const stored: StoredBlob[] = [];
  for (const part of parts) {
    if (part.kind === 'text') out.push({ kind: 'text', text: part.text });
    else if (part.kind === 'data') out.push({ kind: 'data', data: part.data });
    else if ('bytes_base64' in part) {
      const blob = blobs.put(Buffer.from(part.bytes_base64, 'base64'));
      stored.push(blob);
      out.push({ kind: 'file', source: 'inline', sha256: blob.sha256, size: blob.size, ...fileMeta(part.name, part.mime_type) });
    } else {
      out.push({ kind: 'file', source: 'uri', uri: part.uri, availability: 'external', replay: 'by_reference', ...fileMeta(part.name, part.mime_type) });
    }
  }
  return { parts: out, blobs: stored };
}

/** The blobs a list of tagged parts references (a rerun links them to the new run). */
export function blobsOf(parts: readonly TaggedPart[]): StoredBlob[] {
  const out: StoredBlob[] = [];
  for (const p of parts) if (p.kind === 'file' && p.source === 'inline') out.push({ sha256: p.sha256, size: p.size });
  return out;
}

/** Stored input parts as A2A parts (spec 2.5): inline files are read back from the blob store. */
export function taggedToA2A(parts: readonly TaggedPart[], blobs: BlobStore): A2APart[] {
  const out: A2APart[] = [];
  for (const p of parts) {
    switch (p.kind) {
      case 'text':
        out.push({ kind: 'text', text: p.text });
        break;
      case 'data':
        out.push({ kind: 'data', data: p.data });
        break;
      case 'file': {
        const meta = { ...(p.name !== undefined ? { name: p.name } : {}), ...(p.mime_type !== undefined ? { mimeType: p.mime_type } : {}) };
        if (p.source === 'inline') out.push({ kind: 'file', file: { bytes: blobs.get(p.sha256).toString('base64'), ...meta } });
        else out.push({ kind: 'file', file: { uri: p.uri, ...meta } });
        break;
      }
      default:
        break; // status and error parts describe outputs; they are never sent
    }
  }
  return out;
}

/** Parts received from the runtime as tagged parts; file bytes are stored, uris kept. */
export function a2aToTagged(parts: readonly A2APart[] | undefined, blobs: BlobStore): ConvertedParts {
  const out: TaggedPart[] = [];
  const stored: StoredBlob[] = [];
  for (const part of parts ?? []) {
    if (part.kind === 'text') out.push({ kind: 'text', text: part.text });
    else if (part.kind === 'data') out.push({ kind: 'data', data: part.data as Record<string, unknown> });
    else if (part.kind === 'file') {
      const f = part.file as { bytes?: string; uri?: string; name?: string; mimeType?: string };
      if (typeof f.bytes === 'string') {
        const blob = blobs.put(Buffer.from(f.bytes, 'base64'));
        stored.push(blob);
        out.push({ kind: 'file', source: 'inline', sha256: blob.sha256, size: blob.size, ...fileMeta(f.name, f.mimeType) });
      } else if (typeof f.uri === 'string') {
        out.push({ kind: 'file', source: 'uri', uri: f.uri, availability: 'external', replay: 'by_reference', ...fileMeta(f.name, f.mimeType) });
      }
    }
  }
  return { parts: out, blobs: stored };
}
