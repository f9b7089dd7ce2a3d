// Builds a bundle from stream-json's tokens without holding its bulk (D-96): the root's
// `events` are handed over one at a time, and every `bytes_base64` of the `blobs` and
// `linked_blobs` maps is handed over in pieces as it arrives; everything else (sessions, runs,
// the optional keys) is built as JSON.parse would build it. Objects and arrays nested deeper
// than MAX_JSON_DEPTH are refused, as for every JSON body (docs/security.md).
import { HttpInputError } from '../../http/input-error.ts';
import { MAX_JSON_DEPTH } from '../../http/json-depth.ts';

export type BlobSection = 'blobs' | 'linked_blobs';
export const BLOB_SECTIONS: readonly BlobSection[] = ['blobs', 'linked_blobs'];

/** Where the streamed parts of a bundle go. */
export interface WalkSink {
  /** The root object's `format` as soon as it is read (a wrong one stops the import early). */
  format(value: unknown): void;
  event(raw: unknown, index: number): void;
  blobStart(section: BlobSection, sha: string): void;
  blobChunk(base64: string): void;
  blobBytesEnd(): void;
  /** The blob entry's other fields (`size`, and `bytes_base64` when it was not a string). */
  blobEnd(section: BlobSection, sha: string, fields: Record<string, unknown>, streamed: boolean): void;
  /** A map entry that is not an object. */
  blobOther(section: BlobSection, sha: string, value: unknown): void;
}

export interface Token {
  name: string;
  value?: unknown;
}

type Role = 'build' | 'root' | 'outer' | 'events' | 'blobmap' | 'blob';

interface Frame {
  role: Role;
  value: Record<string, unknown> | unknown[] | null;
  key: string | null;
  index: number;
  section?: BlobSection;
  streamed?: boolean;
}

/** Marks a streamed key's place in the root (the bundle checks see it was there). */
export const STREAMED = Symbol('streamed');

export class BundleWalker {
  private readonly stack: Frame[] = [];
  private chunks: string[] | null = null;
  private streaming = false;
  /** The root object (the bundle, or the `{bundle}` wrapper) once it is complete. */
  result: unknown = undefined;
  done = false;
  /** The body was `{"bundle": <it>}`. */
  wrapped = false;
  /** `events` or a blob map was streamed from the top level (then it is no wrapper). */
  streamedAtTop = false;

  constructor(private readonly sink: WalkSink) {}

  /** The bundle's own object (inside the wrapper when there was one). */
  bundle(): unknown {
    if (!this.wrapped) return this.result;
    return (this.result as Record<string, unknown>).bundle;
  }

  push(t: Token): void {
    switch (t.name) {
      case 'startObject':
      case 'startArray':
        return this.open(t.name === 'startObject');
      case 'endObject':
      case 'endArray':
        return this.close();
      case 'keyValue': {
        const top = this.stack[this.stack.length - 1];
        top.key = t.value as string;
        return;
      }
      case 'startString': {
        const top = this.stack[this.stack.length - 1];
        if (top?.role === 'blob' && top.key === 'bytes_base64') {
          this.streaming = true;
          top.streamed = true;
        } else this.chunks = [];
        return;
      }
      case 'stringChunk':
        if (this.streaming) this.sink.blobChunk(t.value as string);
        else this.chunks!.push(t.value as string);
        return;
      case 'endString':
        if (this.streaming) {
          this.streaming = false;
          this.sink.blobBytesEnd();
          return;
        }
        this.value(this.chunks!.length === 1 ? this.chunks![0] : this.chunks!.join(''));
        this.chunks = null;
        return;
      case 'numberValue':
        return this.value(Number(t.value));
      case 'nullValue':
        return this.value(null);
      case 'trueValue':
        return this.value(true);
      case 'falseValue':
        return this.value(false);
      default:
        return;
    }
  }

  private open(isObject: boolean): void {
    if (this.stack.length >= MAX_JSON_DEPTH) throw new HttpInputError('json_too_deep', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`);
    const parent = this.stack[this.stack.length - 1];
    const frame: Frame = { role: 'build', value: isObject ? {} : [], key: null, index: 0 };
    if (!parent) frame.role = isObject ? 'outer' : 'build';
    else if (parent.role === 'outer' && isObject && parent.key === 'bundle' && !('format' in (parent.value as object))) {
      frame.role = 'root';
      this.wrapped = true;
    } else if (parent.role === 'root' || parent.role === 'outer') {
      if (parent.role === 'outer' && (parent.key === 'events' || parent.key === 'blobs' || parent.key === 'linked_blobs')) this.streamedAtTop = true;
      if (parent.key === 'events' && !isObject) {
        frame.role = 'events';
        frame.value = null;
      } else if (isObject && (parent.key === 'blobs' || parent.key === 'linked_blobs')) {
        frame.role = 'blobmap';
        frame.section = parent.key;
      }
    } else if (parent.role === 'blobmap' && isObject) {
      frame.role = 'blob';
      frame.section = parent.section;
      this.sink.blobStart(parent.section!, parent.key!);
    }
    this.stack.push(frame);
  }

  private close(): void {
    const frame = this.stack.pop()!;
    if (frame.role === 'blob') {
      const parent = this.stack[this.stack.length - 1];
      this.sink.blobEnd(frame.section!, parent.key!, frame.value as Record<string, unknown>, frame.streamed === true);
      return;
    }
    if (frame.role === 'events' || frame.role === 'blobmap') return this.value(STREAMED);
    this.value(frame.value);
  }

  /** A complete value: into its container, or handed to the sink. */
  private value(v: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.result = v;
      this.done = true;
      return;
    }
    switch (top.role) {
      case 'events':
        this.sink.event(v, top.index++);
        return;
      case 'blobmap':
        if (v !== STREAMED) this.sink.blobOther(top.section!, top.key!, v);
        return;
      default:
        break;
    }
    if (Array.isArray(top.value)) {
      top.value.push(v);
      return;
    }
    const obj = top.value as Record<string, unknown>;
    // `__proto__` as a plain key, as JSON.parse makes it (never the prototype).
    Object.defineProperty(obj, top.key!, { value: v, enumerable: true, writable: true, configurable: true });
    if ((top.role === 'root' || (top.role === 'outer' && !this.wrapped)) && top.key === 'format') this.sink.format(v);
  }
}
