// Reads POST /bundles/import's body as a stream (D-96): text chunks from body-stream.ts into
// stream-json's tokenizer, its tokens into the walker, whose events and blob bytes go to the
// staging area as they arrive. A wrong `format`, a body that is no JSON object, or 200
// problems stop the reading early; the rest of the bundle is never read then.
import type { IncomingMessage } from 'node:http';
import { getManyValues, none, type Many } from 'stream-chain/defs.js';
import { jsonParser } from 'stream-json/parser.js';
import { BUNDLE_FORMAT } from '../../../shared/bundle.ts';
import { HttpInputError } from '../../http/input-error.ts';
import { PlaygroundError } from '../errors.ts';
import type { BlobStore } from '../store/blobs.ts';
import { bodyText, checkBodyHeaders } from './body-stream.ts';
import { Staging } from './staging.ts';
import { BundleWalker, type Token } from './walker.ts';

export interface ReadBundle {
  staging: Staging;
  /** The bundle without `events` and the blob maps (those are in the staging area). */
  meta: Record<string, unknown>;
  /** Which of the streamed keys the bundle had. */
  present: { events: boolean; blobs: boolean; linked_blobs: boolean };
}

export function unsupportedFormat(format: unknown): PlaygroundError {
  return new PlaygroundError('unsupported_bundle_format', `this studio reads bundles of format '${BUNDLE_FORMAT}', not ${JSON.stringify(format ?? null)}`, {
    format: format ?? null,
    supported: [BUNDLE_FORMAT],
  });
}

const notABundle = () =>
  new PlaygroundError('invalid_bundle', 'the body is not a bundle: send the export answer, or {"bundle": <it>}', {
    problems: [{ path: '', message: 'expected an object' }],
  });

/** Streams the body into a new staging area; the caller disposes of it. */
export async function readBundle(req: IncomingMessage, blobs: BlobStore, limitBytes: number, limitText: string): Promise<ReadBundle> {
  checkBodyHeaders(req, limitBytes, limitText);
  return readBundleText(bodyText(req, limitBytes, limitText), blobs);
}

/** The same from any source of text chunks. */
export async function readBundleText(texts: AsyncIterable<string>, blobs: BlobStore): Promise<ReadBundle> {
  const staging = Staging.open(blobs);
  try {
    const walker = new BundleWalker(staging);
    // The tokenizer itself, called on each text chunk (no stream per token: about twice as fast).
    const tokenize = jsonParser({ packKeys: true, streamKeys: false, packStrings: false, streamStrings: true, packNumbers: true, streamNumbers: false });
    let first = true;
    let stopped = false;
    const feed = (text: string | typeof none): void => {
      let out;
      try {
        out = tokenize(text as string);
      } catch (err) {
        throw new HttpInputError('invalid_json', `the request body is not valid JSON (${(err as Error).message.replace(/^Parser /, 'parser ')})`);
      }
      if (out === none) return;
      for (const token of getManyValues(out as Many<Token>)) {
        if (first && token.name !== 'startObject') throw notABundle();
        first = false;
        walker.push(token);
      }
      if (staging.formatSeen !== undefined && staging.formatSeen !== BUNDLE_FORMAT) throw unsupportedFormat(staging.formatSeen);
      if (staging.problems.full) stopped = true;
    };
    for await (const text of texts) {
      feed(text);
      if (stopped) break;
    }
    if (!stopped) feed(none);
    staging.finish();
    if (!stopped && !walker.done) throw new HttpInputError('invalid_json', 'the request body is not valid JSON (it ended early)');
    if (walker.wrapped && walker.streamedAtTop)
      throw new PlaygroundError('invalid_bundle', 'send the bundle, or {"bundle": <it>}, not both', {
        problems: [{ path: '', message: 'both a bundle and a wrapper' }],
      });
    const root = (walker.done ? walker.bundle() : undefined) ?? {};
    if (typeof root !== 'object' || root === null || Array.isArray(root)) throw notABundle();
    const meta = root as Record<string, unknown>;
    const present = { events: 'events' in meta, blobs: 'blobs' in meta, linked_blobs: 'linked_blobs' in meta };
    return { staging, meta, present };
  } catch (err) {
    staging.dispose();
    throw err;
  }
}
