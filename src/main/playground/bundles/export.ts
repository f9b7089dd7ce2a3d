// POST /bundles/export (spec 4.3 rules 6 and 8): the selected sessions and runs, their
// events and the blobs their parts reference, and when asked the optional datasets and
// experiments keys (export-evals.ts), and the optional keys of D-97 (export-extras.ts: linked
// blobs, files beside datasets, debugger origins), streamed as one JSON document. Deterministic:
// the same selection of the same data gives the same bytes (fixed key order, everything
// sorted by id, no export time inside). Memory stays bounded: events are read a page at a
// time and each blob is read and base64-encoded in chunks.
import fs from 'node:fs';
import type { Writable } from 'node:stream';
import { BUNDLE_FORMAT, REDACTED, type Bundle, type BundleRun, type BundleSession } from '../../../shared/bundle.ts';
import type { Session, TaggedPart } from '../../../shared/playground.ts';
import { PlaygroundError } from '../errors.ts';
import type { EventLog } from '../events/log.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { PlaygroundStore, RunRecord } from '../store/store.ts';
import { writeEvals, type EvalsPlan } from './export-evals.ts';
import { branchOf, runExtras, type DatasetFileEntry } from './export-extras.ts';
import type { ExperimentStore } from '../experiments/store.ts';

/** The reserved metadata key (spec 4.3 rule 8). */
const RESERVED = 'svc.playground';
const EVENT_PAGE = 1000;
/** Bytes read per base64 chunk: a multiple of 3, so chunks concatenate without padding. */
const BLOB_CHUNK = 3 * 64 * 1024;

export interface Selection {
  session_ids: string[];
  run_ids: string[];
}

export interface ExportPlan {
  sessions: Session[];
  runs: RunRecord[];
  blobs: string[];
  /** Run id → the blobs it links beyond its file parts (recorded bodies; D-97), sorted. */
  linked: Map<string, string[]>;
}

const byId =
  <T>(key: (x: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

export function inlineHashes(parts: readonly TaggedPart[]): string[] {
  return parts.flatMap((p) => (p.kind === 'file' && p.source === 'inline' ? [p.sha256] : []));
}

/** Resolves the selection: every run of each selected session (and of each selected
 * experiment's hidden sessions), each selected run and its session; unknown ids are a 404
 * naming them all. */
export function planExport(store: PlaygroundStore, sel: Selection, evals?: Pick<EvalsPlan, 'sessionIds' | 'missing' | 'asked'>): ExportPlan {
  const missingSessions = sel.session_ids.filter((id) => !store.getSession(id));
  const missingRuns = sel.run_ids.filter((id) => !store.getRun(id));
  const missingExperiments = evals?.missing.experiment_ids ?? [];
  const missingDatasets = evals?.missing.datasets ?? [];
  if (missingSessions.length || missingRuns.length || missingExperiments.length || missingDatasets.length) {
    const names = [
      ...missingSessions.map((id) => `session '${id}'`),
      ...missingRuns.map((id) => `run '${id}'`),
      ...missingExperiments.map((id) => `experiment '${id}'`),
      ...missingDatasets.map((id) => `dataset '${id}'`),
    ];
    const more = evals ? { experiment_ids: missingExperiments, datasets: missingDatasets } : {};
    throw new PlaygroundError('not_found', `nothing to export under ${names.join(', ')}`, { session_ids: missingSessions, run_ids: missingRuns, ...more });
  }
  if (sel.session_ids.length === 0 && sel.run_ids.length === 0 && !evals?.asked.experiments && !evals?.asked.datasets) {
    throw new PlaygroundError('invalid_request', 'select what to export: session_ids, run_ids, experiment_ids, datasets (any of them)');
  }
  const runs = new Map<string, RunRecord>();
  const selectedSessions = [...sel.session_ids, ...(evals?.sessionIds ?? [])];
  for (const sid of selectedSessions) for (const id of store.sessionRunIds(sid)) runs.set(id, store.getRun(id)!);
  for (const id of sel.run_ids) runs.set(id, store.getRun(id)!);
  const sessionIds = new Set([...selectedSessions, ...[...runs.values()].map((r) => r.session_id)]);
  const sessions = [...sessionIds].map((id) => store.getSession(id)!).sort(byId((s) => s.session_id));
  const sortedRuns = [...runs.values()].sort(byId((r) => r.run_id));
  const blobs = new Set<string>();
  const linked = new Map<string, string[]>();
  for (const r of sortedRuns) {
    const own = new Set([...inlineHashes(r.input_parts), ...inlineHashes(r.output_parts)]);
    for (const h of own) blobs.add(h);
    // The code snapshot's blobs stay home: a bundle carries the code's hashes, not its files.
    const code = new Set(Object.values(r.code_files ?? {}));
    const more = store.runBlobHashes(r.run_id).filter((h) => !own.has(h) && !code.has(h));
    if (more.length) linked.set(r.run_id, more);
  }
  return { sessions, runs: sortedRuns, blobs: [...blobs].sort(), linked };
}

/** The contract ids the runs' input DataParts name (their `schema` key), sorted. */
export function schemasUsed(plan: ExportPlan): string[] {
  const ids = new Set<string>();
  for (const r of plan.runs) {
    for (const p of r.input_parts) if (p.kind === 'data' && typeof p.data.schema === 'string') ids.add(p.data.schema);
  }
  return [...ids].sort();
}

/** User metadata: keys kept, every value replaced; the reserved key dropped. */
export function redactMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(metadata).sort()) if (key !== RESERVED) out[key] = REDACTED;
  return out;
}

function bundleSession(s: Session, sessions: ReadonlySet<string>, runs: ReadonlySet<string>): BundleSession {
  return { session_id: s.session_id, title: s.title, created_at: s.created_at, updated_at: s.updated_at, ...branchOf(s, sessions, runs) };
}

function bundleRun(r: RunRecord, exported: Set<string>, linked: readonly string[]): BundleRun {
  return {
    run_id: r.run_id,
    session_id: r.session_id,
    parent_run_id: r.parent_run_id && exported.has(r.parent_run_id) ? r.parent_run_id : null,
    origin: r.origin,
    status: r.status,
    reason: r.reason,
    created_at: r.created_at,
    started_at: r.started_at,
    ended_at: r.ended_at,
    input_parts: r.input_parts,
    output_parts: r.output_parts,
    scores: r.scores,
    metadata: redactMetadata(r.metadata),
    changed_files: r.changed_files,
    revision: r.revision,
    code_fingerprint: r.code_fingerprint ?? null,
    code_files: r.code_files,
    ...runExtras(r, linked, exported),
  };
}

/** The exporting machine's A2A conversation and task ids: meaningless elsewhere, never exported. */
const A2A_IDS = ['context_id', 'task_id'];

/** Events as a bundle carries them: no A2A ids (phase details and traces name them), and the
 * request's labels that traces repeat (`user_id`, and every key of the run's metadata)
 * redacted like the metadata itself. */
function redactEvent(body: Record<string, unknown>, metadataKeys: Set<string>): Record<string, unknown> {
  const out = { ...body };
  for (const key of A2A_IDS) delete out[key];
  if (out.kind !== 'trace' || !out.data || typeof out.data !== 'object') return out;
  const data = { ...(out.data as Record<string, unknown>) };
  for (const key of A2A_IDS) delete data[key];
  for (const key of Object.keys(data)) if (key === 'user_id' || metadataKeys.has(key)) data[key] = REDACTED;
  delete data[RESERVED];
  out.data = data;
  return out;
}

/** Writes with back-pressure; rejects when the client went away (so the export stops and
 * closes its files instead of waiting for a drain that never comes). */
async function put(out: Writable, chunk: string): Promise<void> {
  if (out.destroyed) throw new Error('the client closed the connection');
  if (out.write(chunk)) return;
  await new Promise<void>((resolve, reject) => {
    const cleanup = () => {
      out.off('drain', drained);
      out.off('close', gone);
      out.off('error', gone);
    };
    const drained = () => {
      cleanup();
      resolve();
    };
    const gone = () => {
      cleanup();
      reject(new Error('the client closed the connection'));
    };
    out.on('drain', drained);
    out.on('close', gone);
    out.on('error', gone);
  });
}

export interface BundleExtras {
  project: string;
  schemaVersion: number;
  contracts: Bundle['input_contracts'];
  /** The optional datasets and experiments keys (written only when asked for). */
  evals?: { plan: EvalsPlan; experiments: ExperimentStore };
  /** The files beside the exported datasets (D-97). */
  datasetFiles?: DatasetFileEntry[];
}

export async function writeBundle(
  out: Writable,
  plan: ExportPlan,
  deps: { store: PlaygroundStore; log: EventLog; blobs: BlobStore },
  extras: BundleExtras,
): Promise<void> {
  deps.log.flush();
  const exported = new Set(plan.runs.map((r) => r.run_id));
  const sessionIds = new Set(plan.sessions.map((s) => s.session_id));
  const sessions = plan.sessions.map((s) => bundleSession(s, sessionIds, exported));
  await put(out, `{"format":${JSON.stringify(BUNDLE_FORMAT)},"sessions":${JSON.stringify(sessions)},"runs":[`);
  for (const [i, r] of plan.runs.entries()) await put(out, (i ? ',' : '') + JSON.stringify(bundleRun(r, exported, plan.linked.get(r.run_id) ?? [])));
  await put(out, '],"events":[');
  let first = true;
  for (const r of plan.runs) {
    const keys = new Set(Object.keys(r.metadata));
    let after = 0;
    for (;;) {
      const rows = deps.store.readEventObjects(r.run_id, { after, limit: EVENT_PAGE });
      let chunk = '';
      for (const row of rows) {
        if (!row.event) throw new SyntaxError(`stored event ${row.seq} of run ${r.run_id} is not JSON`);
        chunk += (first ? '' : ',') + JSON.stringify(redactEvent(row.event, keys));
        first = false;
      }
      if (chunk) await put(out, chunk);
      if (rows.length < EVENT_PAGE) break;
      after = rows[rows.length - 1].seq;
    }
  }
  await put(out, '],"blobs":');
  await writeBlobMap(
    out,
    plan.blobs.map((sha) => [sha, deps.blobs.pathOf(sha)]),
  );
  await put(
    out,
    `,"source":${JSON.stringify({ project: extras.project, schema_version: extras.schemaVersion })},"input_contracts":${JSON.stringify(extras.contracts)}`,
  );
  if (extras.evals) await writeEvals((chunk) => put(out, chunk), extras.evals.plan, extras.evals.experiments);
  // D-97: the files beside the datasets, then every blob no file part uses.
  const files = extras.datasetFiles ?? [];
  if (files.length)
    await put(out, `,"dataset_files":${JSON.stringify(files.map((f) => ({ dataset: f.dataset, path: f.path, sha256: f.sha256, size: f.size })))}`);
  const inBlobs = new Set(plan.blobs);
  const more = new Map<string, string>();
  for (const list of plan.linked.values()) for (const sha of list) if (!inBlobs.has(sha)) more.set(sha, deps.blobs.pathOf(sha));
  for (const f of files) if (!inBlobs.has(f.sha256) && !more.has(f.sha256)) more.set(f.sha256, f.abs);
  if (more.size) {
    await put(out, ',"linked_blobs":');
    await writeBlobMap(
      out,
      [...more].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    );
  }
  await put(out, '}');
}

/** `{"<sha256>":{"bytes_base64":"…","size":n},…}`, each file read and encoded in chunks. */
async function writeBlobMap(out: Writable, entries: readonly (readonly [string, string])[]): Promise<void> {
  await put(out, '{');
  for (const [i, [sha, file]] of entries.entries()) {
    const size = fs.statSync(file).size;
    await put(out, `${i ? ',' : ''}${JSON.stringify(sha)}:{"bytes_base64":"`);
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(BLOB_CHUNK);
      for (;;) {
        // Fill the whole chunk (a short read mid-file would put padding inside the base64).
        let n = 0;
        while (n < BLOB_CHUNK) {
          const got = fs.readSync(fd, buf, n, BLOB_CHUNK - n, null);
          if (got === 0) break;
          n += got;
        }
        if (n === 0) break;
        await put(out, buf.subarray(0, n).toString('base64'));
        if (n < BLOB_CHUNK) break;
      }
    } finally {
      fs.closeSync(fd);
    }
    await put(out, `","size":${size}}`);
  }
  await put(out, '}');
}
