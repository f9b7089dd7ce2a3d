// POST /bundles/import (spec 4.3 rule 7, 9.4): everything is checked before anything is
// written: the shape, every id relation (runs to sessions, parents, events to runs, file
// parts to blobs), every blob's size and sha256, and the optional datasets and experiments
// (import-evals.ts). Then the dataset files are written (by the route), the new blob files
// (content-addressed: a blob already stored is not written again), and the rows go in one
// transaction; if that fails, the files it wrote are removed again.
import {
  BUNDLE_FORMAT,
  BundleImportSchema,
  REDACTED,
  type BundleProblem,
  type ImportPlan,
  type ImportResult,
  type ParsedBundle,
} from '../../../shared/bundle.ts';
import { ACTIVE_STATES, type RunStatus, type ScoreEntry, type TaggedPart } from '../../../shared/playground.ts';
import { PlaygroundError } from '../errors.ts';
import { newRunId, newSessionId } from '../ids.ts';
import { BlobStore } from '../store/blobs.ts';
import { SUPPORTED_SCHEMA_VERSION } from '../store/migrations.ts';
import type { PlaygroundStore, RunRecord } from '../store/store.ts';
import { inlineHashes } from './export.ts';
import type { DatasetImport } from '../../../shared/bundle-evals.ts';
import type { ExperimentStore } from '../experiments/store.ts';
import { checkEvals, insertExperiments } from './import-evals.ts';

const MAX_PROBLEMS = 200;
const SHA = /^[0-9a-f]{64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const pointer = (path: readonly PropertyKey[]) => path.map((k) => `/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/** Accepts `{bundle: {...}}` or the bundle itself (spec 4.3 rule 7). */
export function unwrap(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'bundle' in body && !('format' in body)) return (body as { bundle: unknown }).bundle;
  return body;
}

export interface CheckedBundle {
  bundle: ParsedBundle;
  /** The events as sent (the parse reorders keys; a stored event keeps its own order). */
  rawEvents: Record<string, unknown>[];
  bytes: Map<string, Buffer>;
}

/** Checks everything; answers the bundle and its decoded blobs, or throws 400 with every
 * problem (JSON pointer and message). Writes nothing. */
export function checkBundle(raw: unknown): CheckedBundle {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new PlaygroundError('invalid_bundle', 'the body is not a bundle: send the export answer, or {"bundle": <it>}', {
      problems: [{ path: '', message: 'expected an object' }],
    });
  const format = (raw as { format?: unknown }).format;
  if (format !== BUNDLE_FORMAT) {
    throw new PlaygroundError('unsupported_bundle_format', `this studio reads bundles of format '${BUNDLE_FORMAT}', not ${JSON.stringify(format ?? null)}`, {
      format: format ?? null,
      supported: [BUNDLE_FORMAT],
    });
  }
  const parsed = BundleImportSchema.safeParse(raw);
  const problems: BundleProblem[] = [];
  const add = (path: string, message: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ path, message });
  };
  if (!parsed.success) {
    for (const issue of parsed.error.issues) add(pointer(issue.path), issue.message);
    throw invalid(problems);
  }
  const b = parsed.data;
  const sessions = new Set<string>();
  b.sessions.forEach((s, i) => {
    if (sessions.has(s.session_id)) add(`/sessions/${i}/session_id`, `session '${s.session_id}' appears twice`);
    sessions.add(s.session_id);
  });
  const runs = new Set<string>();
  b.runs.forEach((r, i) => {
    if (runs.has(r.run_id)) add(`/runs/${i}/run_id`, `run '${r.run_id}' appears twice`);
    runs.add(r.run_id);
  });
  const parentOf = new Map(b.runs.map((r) => [r.run_id, r.parent_run_id]));
  const inCycle = (id: string): boolean => {
    const seen = new Set<string>();
    for (let at: string | null | undefined = id; at; at = parentOf.get(at)) {
      if (seen.has(at)) return true;
      seen.add(at);
    }
    return false;
  };
  const referenced = new Map<string, { path: string; size: number }[]>();
  b.runs.forEach((r, i) => {
    if (!sessions.has(r.session_id)) add(`/runs/${i}/session_id`, `run '${r.run_id}' belongs to session '${r.session_id}', which is not in the bundle`);
    if (r.parent_run_id !== null && !runs.has(r.parent_run_id))
      add(`/runs/${i}/parent_run_id`, `run '${r.run_id}' names parent run '${r.parent_run_id}', which is not in the bundle`);
    else if (r.parent_run_id !== null && inCycle(r.run_id)) add(`/runs/${i}/parent_run_id`, `run '${r.run_id}' is its own ancestor`);
    for (const side of ['input_parts', 'output_parts'] as const) {
      (r[side] as TaggedPart[]).forEach((p, j) => {
        if (p.kind === 'file' && p.source === 'inline') {
          const list = referenced.get(p.sha256) ?? [];
          list.push({ path: `/runs/${i}/${side}/${j}`, size: p.size });
          referenced.set(p.sha256, list);
        }
      });
    }
  });
  const seqs = new Set<string>();
  b.events.forEach((e, i) => {
    if (!runs.has(e.run_id)) add(`/events/${i}/run_id`, `event ${e.seq} belongs to run '${e.run_id}', which is not in the bundle`);
    const key = `${e.run_id}\u0000${e.seq}`;
    if (seqs.has(key)) add(`/events/${i}/seq`, `run '${e.run_id}' has two events with seq ${e.seq}`);
    seqs.add(key);
  });
  const bytes = new Map<string, Buffer>();
  for (const [sha, blob] of Object.entries(b.blobs)) {
    const at = `/blobs/${sha.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (!SHA.test(sha)) {
      add(at, 'a blob is keyed by its lowercase hex sha256');
      continue;
    }
    if (!BASE64.test(blob.bytes_base64)) {
      add(`${at}/bytes_base64`, 'not base64');
      continue;
    }
    const buf = Buffer.from(blob.bytes_base64, 'base64');
    if (buf.length !== blob.size) add(`${at}/size`, `says ${blob.size} bytes, the content has ${buf.length}`);
    else if (BlobStore.hash(buf) !== sha) add(at, 'the content does not hash to its key (sha256)');
    else bytes.set(sha, buf);
    if (!referenced.has(sha)) add(at, 'no file part of the bundle uses this blob');
  }
  for (const [sha, uses] of referenced) {
    for (const use of uses) {
      if (!(sha in b.blobs)) add(`${use.path}/sha256`, `the file's bytes (blob ${sha}) are not in the bundle`);
      else if (b.blobs[sha].size !== use.size) add(`${use.path}/size`, `the part says ${use.size} bytes, its blob has ${b.blobs[sha].size}`);
    }
  }
  checkEvals(b, add);
  if (problems.length) throw invalid(problems);
  return { bundle: b, rawEvents: (raw as { events: Record<string, unknown>[] }).events, bytes };
}

function invalid(problems: BundleProblem[]): PlaygroundError {
  return new PlaygroundError(
    'invalid_bundle',
    `the bundle was not imported: ${problems.length}${problems.length >= MAX_PROBLEMS ? '+' : ''} problem${problems.length === 1 ? '' : 's'}, nothing was written`,
    { problems },
  );
}

export function planOf(c: CheckedBundle, blobs: BlobStore, dryRun: boolean, datasets: DatasetImport[] = []): ImportPlan {
  const b = c.bundle;
  let fresh = 0;
  let freshBytes = 0;
  for (const [sha, buf] of c.bytes) {
    if (!blobs.has(sha)) {
      fresh += 1;
      freshBytes += buf.length;
    }
  }
  const redacted = new Set<string>();
  for (const r of b.runs) for (const [k, v] of Object.entries(r.metadata)) if (v === REDACTED) redacted.add(k);
  return {
    dry_run: dryRun,
    project: typeof b.source?.project === 'string' ? b.source.project : null,
    create: {
      sessions: b.sessions.length,
      runs: b.runs.length,
      events: b.events.length,
      experiments: b.experiments?.length ?? 0,
      experiment_cases: (b.experiments ?? []).reduce((n, e) => n + e.cases.length, 0),
    },
    blobs: { new: fresh, already_stored: c.bytes.size - fresh, bytes_new: freshBytes },
    interrupted_runs: b.runs.filter((r) => ACTIVE_STATES.includes(r.status as RunStatus)).length,
    redacted_metadata_keys: [...redacted].sort(),
    cancelled_experiments: (b.experiments ?? []).filter((e) => e.status === 'running').length,
    datasets,
  };
}

interface ImportIds {
  /** Bundle id → new id. */
  sessions: Record<string, string>;
  runs: Record<string, string>;
  /** Bundle run id → its highest event seq in the bundle. */
  lastSeq: Map<string, number>;
  project: string | null;
  now: string;
}

/** A bundle's run as stored under its new ids; an imported run is never active: one
 * exported mid-run arrives interrupted. */
function importedRun(r: ParsedBundle['runs'][number], ids: ImportIds): RunRecord {
  const active = ACTIVE_STATES.includes(r.status as RunStatus);
  return {
    run_id: ids.runs[r.run_id],
    session_id: ids.sessions[r.session_id],
    parent_run_id: r.parent_run_id ? ids.runs[r.parent_run_id] : null,
    origin: r.origin,
    status: (active ? 'interrupted' : r.status) as RunStatus,
    reason: active ? 'exported_while_active' : r.reason,
    context_id: null,
    task_id: null,
    created_at: r.created_at,
    started_at: r.started_at,
    ended_at: r.ended_at ?? (active ? ids.now : null),
    input_parts: r.input_parts as TaggedPart[],
    output_parts: r.output_parts as TaggedPart[],
    scores: r.scores as ScoreEntry[],
    metadata: r.metadata,
    changed_files: r.changed_files,
    revision: r.revision,
    last_seq: ids.lastSeq.get(r.run_id) ?? 0,
    code_fingerprint: r.code_fingerprint ?? null,
    code_files: r.code_files ?? null,
    imported_from: r.run_id,
    imported_project: ids.project,
    imported_at: ids.now,
  };
}

/** 409 when the local database is newer than this build (nothing is written then). */
export function assertSupportedStore(store: PlaygroundStore): void {
  if (store.schemaVersion > SUPPORTED_SCHEMA_VERSION) {
    throw new PlaygroundError(
      'unsupported_database_version',
      `the local database has schema version ${store.schemaVersion}, newer than this build supports (${SUPPORTED_SCHEMA_VERSION}); it was left unmodified`,
      {
        database_version: store.schemaVersion,
        supported_version: SUPPORTED_SCHEMA_VERSION,
      },
    );
  }
}

/** The experiments store and what happens to each dataset (already written by the caller). */
export interface ImportEvals {
  experiments: ExperimentStore;
  datasets: DatasetImport[];
}

/** Writes the checked bundle under new ids; answers the plan and the id mapping. */
export function writeImport(store: PlaygroundStore, blobs: BlobStore, c: CheckedBundle, evals?: ImportEvals, now = new Date().toISOString()): ImportResult {
  assertSupportedStore(store);
  if (c.bundle.experiments?.length && !evals) throw new Error('a bundle with experiments needs the experiments store');
  const plan = planOf(c, blobs, false, evals?.datasets ?? []);
  const b = c.bundle;
  const sessions: Record<string, string> = {};
  const runs: Record<string, string> = {};
  for (const s of [...b.sessions].sort((x, y) => (x.session_id < y.session_id ? -1 : 1))) sessions[s.session_id] = newSessionId();
  for (const r of [...b.runs].sort((x, y) => (x.run_id < y.run_id ? -1 : 1))) runs[r.run_id] = newRunId();

  let experiments: Record<string, string> = {};
  const written: string[] = [];
  try {
    for (const [hash, buf] of c.bytes) {
      if (blobs.has(hash)) continue;
      blobs.put(buf);
      written.push(hash);
    }
    store.transaction(() => {
      for (const s of b.sessions) store.insertSessionRecord({ ...s, session_id: sessions[s.session_id] });
      const lastSeq = new Map<string, number>();
      for (const e of b.events) lastSeq.set(e.run_id, Math.max(lastSeq.get(e.run_id) ?? 0, e.seq));
      const ids: ImportIds = { sessions, runs, lastSeq, project: plan.project, now };
      for (const r of b.runs) {
        const record = importedRun(r, ids);
        store.insertRunRecord(record);
        for (const sha of [...inlineHashes(record.input_parts), ...inlineHashes(record.output_parts)])
          store.linkBlob(record.run_id, sha, c.bytes.get(sha)!.length, now);
      }
      store.insertEvents(
        b.events.map((e, i) => {
          const id = runs[e.run_id];
          return { run_id: id, seq: e.seq, kind: e.kind, body: JSON.stringify({ ...c.rawEvents[i], run_id: id }) };
        }),
      );
      // A run exported mid-run gets the terminal event its stream never had (insertEvents
      // advances the run's last_seq to it).
      for (const r of b.runs) {
        if (!ACTIVE_STATES.includes(r.status as RunStatus)) continue;
        const id = runs[r.run_id];
        const seq = (lastSeq.get(r.run_id) ?? 0) + 1;
        const body = JSON.stringify({ seq, run_id: id, ts: now, kind: 'run.status', status: 'interrupted', reason: 'exported_while_active' });
        store.insertEvents([{ run_id: id, seq, kind: 'run.status', body }]);
      }
      if (evals) experiments = insertExperiments(b, evals.datasets, evals.experiments, { sessions, runs, project: plan.project, now });
    });
  } catch (err) {
    for (const sha of written) blobs.delete(sha);
    throw err;
  }
  const datasets = Object.fromEntries((evals?.datasets ?? []).map((d) => [d.name, d.as]));
  return { ...plan, mapping: { sessions, runs, experiments, datasets } };
}
