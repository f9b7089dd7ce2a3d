// The request body of POST /bundles/import as UTF-8 text, a chunk at a time (docs/playground-api.md,
// "POST /bundles/import"; D-96): the same edge rules as every JSON body (http/json-body.ts:
// `application/json` only, UTF-8, identity/gzip/deflate/br), but never held whole. The size
// limit counts the decoded bytes; a declared Content-Length over it is refused before reading.
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { hasBody } from '../../http/json-body.ts';
import { HttpInputError } from '../../http/input-error.ts';
import { PlaygroundError } from '../errors.ts';

const MEDIA = /^application\/json\s*(;|$)/i;

/** Checks the headers; throws the edge's error (415, 413) or `invalid_bundle` for no body. */
export function checkBodyHeaders(req: IncomingMessage, limitBytes: number, limitText: string): void {
  if (!hasBody(req)) throw new PlaygroundError('invalid_bundle', 'send the bundle as the JSON body', { problems: [{ path: '', message: 'no body' }] });
  const type = req.headers['content-type'] ?? '';
  if (!MEDIA.test(type)) throw new HttpInputError('unsupported_media_type', `send the body as application/json (got '${type || 'no content type'}')`);
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw new HttpInputError('unsupported_media_type', `unsupported charset '${charset}': send the body as UTF-8 JSON`);
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (!['identity', 'gzip', 'deflate', 'br'].includes(encoding))
    throw new HttpInputError('unsupported_media_type', 'unsupported Content-Encoding: send the body as identity, gzip, deflate or br');
  const length = Number(req.headers['content-length']);
  if (encoding === 'identity' && Number.isFinite(length) && length > limitBytes)
    throw new HttpInputError('body_too_large', `the request body is larger than the ${limitText} limit`);
}

function decoded(req: IncomingMessage): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity') return req;
  const z = encoding === 'gzip' ? zlib.createGunzip() : encoding === 'deflate' ? zlib.createInflate() : zlib.createBrotliDecompress();
  req.on('error', (err) => z.destroy(err));
  return req.pipe(z);
}

/** The body's text, chunk by chunk; throws `invalid_json` for bytes that are not UTF-8, a
 * corrupt encoding or a body cut short, and `body_too_large` past the limit. */
export async function* bodyText(req: IncomingMessage, limitBytes: number, limitText: string): AsyncGenerator<string> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  let total = 0;
  try {
    // Not destroyed when the reading stops early: the answer still goes out on the socket.
    for await (const chunk of decoded(req).iterator({ destroyOnReturn: false })) {
      total += (chunk as Buffer).length;
      if (total > limitBytes) throw new HttpInputError('body_too_large', `the request body is larger than the ${limitText} limit`);
      const text = utf8.decode(chunk as Buffer, { stream: true });
      if (text) yield text;
    }
    const rest = utf8.decode();
    if (rest) yield rest;
  } catch (err) {
    if (err instanceof HttpInputError) throw err;
    const code = (err as { code?: string }).code ?? '';
    if (/^(Z_|ERR_BROTLI|ERR__ERROR)/.test(code)) throw new HttpInputError('invalid_json', 'the request body is corrupt under its Content-Encoding');
    if (code === 'ERR_ENCODING_INVALID_ENCODED_DATA') throw new HttpInputError('invalid_json', 'the request body is not UTF-8');
    throw new HttpInputError('invalid_json', 'the request body ended before it was complete');
  }
  if (req.readableAborted || !req.complete) throw new HttpInputError('invalid_json', 'the request body ended before it was complete');
}
