// recordings/ owns a studio run's recorded calls (docs/playground-api.md, "Recorded calls"
// and "Replay"; D-91, D-92): large bodies of the `model.call` / `outbound.call` trace events
// moved to the content-addressed blob store as they are captured, a run's calls read back
// with their bodies, and the replay plan a replayed run sends the runtime.
import type { EventLog } from '../events/log.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { PlaygroundStore } from '../store/store.ts';
import {
  INLINE_BODY_LIMIT,
  isBodyRef,
  MODEL_CALL_EVENT,
  OUTBOUND_CALL_EVENT,
  type BodyRef,
  type ReplayAnswer,
  type ReplayMismatch,
  type ReplayPlan,
} from '../../../shared/recordings.ts';

/** The fields of a recorded call that may be large: stored as blobs past INLINE_BODY_LIMIT. */
const BODY_FIELDS = ['input_messages', 'output_messages', 'params', 'raw_request', 'request_body', 'response_body'] as const;

export function isRecordedCall(name: unknown, data: Record<string, unknown>): boolean {
  return (name === MODEL_CALL_EVENT || name === OUTBOUND_CALL_EVENT) && typeof data.key === 'object' && data.key !== null;
}

/** Moves each large body of a recorded call to the blob store (linked to the run, so deleting
 * its session removes them) and puts a BodyRef in its place. Changes `data` in place. */
export function offloadBodies(data: Record<string, unknown>, runId: string, blobs: BlobStore, store: PlaygroundStore): void {
  for (const field of BODY_FIELDS) {
    const v = data[field];
    if (v === undefined || v === null || isBodyRef(v)) continue;
    const json = JSON.stringify(v);
    if (json.length <= INLINE_BODY_LIMIT) continue;
    const bytes = Buffer.from(json, 'utf8');
    const { sha256, size } = blobs.put(bytes);
    store.linkBlob(runId, sha256, size, new Date().toISOString());
    data[field] = { blob: sha256, bytes: size, preview: json.slice(0, 200) } satisfies BodyRef;
  }
}

/** A BodyRef's value read back from the blob store (undefined when the blob is gone). */
function resolve(v: unknown, blobs: BlobStore, maxBytes: number): unknown {
  if (!isBodyRef(v)) return v;
  if (v.bytes > maxBytes || !blobs.has(v.blob)) return v;
  try {
    return JSON.parse(blobs.get(v.blob).toString('utf8')) as unknown;
  } catch {
    return v;
  }
}

export interface RecordedCallRow {
  seq: number;
  name: string;
  [field: string]: unknown;
}

/** The run's recorded calls in the order they ended; bodies up to `maxBytes` read back from
 * the blob store, larger ones left as BodyRefs. */
export function recordedCalls(log: EventLog, runId: string, blobs: BlobStore, maxBytes = 1024 * 1024): RecordedCallRow[] {
  const out: RecordedCallRow[] = [];
  let after = 0;
  const upTo = log.lastSeq(runId);
  for (;;) {
    const rows = log.read(runId, after, upTo, 1000);
    for (const r of rows) {
      if (r.kind !== 'trace') continue;
      const ev = JSON.parse(r.body) as { name: string; data: Record<string, unknown> };
      if (!isRecordedCall(ev.name, ev.data)) continue;
      const data = { ...ev.data };
      for (const f of BODY_FIELDS) if (data[f] !== undefined) data[f] = resolve(data[f], blobs, maxBytes);
      out.push({ seq: r.seq, name: ev.name, ...data });
    }
    if (rows.length < 1000) break;
    after = rows[rows.length - 1].seq;
  }
  return out;
}

/** What a replay is handed: every recorded call of `fromRunId` as an answer, bodies whole. */
export function replayPlan(log: EventLog, fromRunId: string, blobs: BlobStore, onMismatch: ReplayMismatch): ReplayPlan {
  const answers: ReplayAnswer[] = [];
  for (const c of recordedCalls(log, fromRunId, blobs, Number.MAX_SAFE_INTEGER)) {
    const key = c.key as ReplayAnswer['key'];
    if (c.name === MODEL_CALL_EVENT) {
      const messages = Array.isArray(c.input_messages) ? c.input_messages : [];
      const params = (c.params ?? {}) as Record<string, unknown>;
      answers.push({
        kind: 'model',
        key,
        request: { messages, tools: toolNamesOf(params.tools), tool_choice: params.tool_choice ?? null },
        output_messages: Array.isArray(c.output_messages) ? (c.output_messages as ReplayAnswer & { role: string }[]) : [],
        usage: (c.usage as { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_creation_tokens: number } | null) ?? null,
        response_model: (c.response_model as string | null) ?? null,
        finish_reasons: (c.finish_reasons as string[] | undefined) ?? [],
        ...(typeof c.error === 'string' ? { error: c.error } : {}),
      } as ReplayAnswer);
    } else {
      answers.push({
        kind: c.kind as 'fetch' | 'mcp' | 'agent',
        key,
        request: c.method === 'CALL' ? c.request_body : { method: c.method, url: c.url, body: c.request_body ?? null },
        status: (c.status as number | null) ?? null,
        ...(c.response_headers ? { response_headers: c.response_headers as Record<string, string> } : {}),
        ...(c.response_body !== undefined ? { response_body: c.response_body } : {}),
        ...(typeof c.error === 'string' ? { error: c.error } : {}),
      });
    }
  }
  return { on_mismatch: onMismatch, answers };
}

/** The tool names the runtime hashes (replay-model.ts modelRequest), from the recorded params. */
function toolNamesOf(tools: unknown): string[] | null {
  if (!Array.isArray(tools)) return null;
  return tools.map((t: { name?: string; function?: { name?: string } }) => String(t?.name ?? t?.function?.name ?? '?'));
}
