// Writing a checked bundle (docs/playground-api.md, "POST /bundles/import"): the staged blob
// files the runs use are moved into the blob folder (content-addressed: a blob already stored
// is not written again), then every row goes in one transaction, the events read back from
// the staging area a page at a time (D-96); if that fails, the blob files it moved are removed.
import type { DatasetImport } from '../../../shared/bundle-evals.ts';
import type { DatasetFilesPlan } from '../../../shared/bundle-extras.ts';
import { REDACTED, type ImportPlan, type ImportResult, type ParsedBundle } from '../../../shared/bundle.ts';
import { ACTIVE_STATES, type RunStatus, type ScoreEntry, type TaggedPart } from '../../../shared/playground.ts';
import { PlaygroundError } from '../errors.ts';
import type { ExperimentStore } from '../experiments/store.ts';
import { newRunId, newSessionId } from '../ids.ts';
import type { BlobStore } from '../store/blobs.ts';
import { SUPPORTED_SCHEMA_VERSION } from '../store/migrations.ts';
import type { PlaygroundStore, RunRecord } from '../store/store.ts';
import { inlineHashes } from './export.ts';
import type { CheckedBundle } from './import.ts';
import { insertExperiments } from './import-evals.ts';

const NO_FILES: DatasetFilesPlan = { new: 0, identical: 0 };

/** The blobs the runs use (file parts and linked blobs): what goes into the blob folder. */
export function runBlobs(b: ParsedBundle): Set<string> {
  const out = new Set<string>();
  for (const r of b.runs) {
    for (const sha of [...inlineHashes(r.input_parts as TaggedPart[]), ...inlineHashes(r.output_parts as TaggedPart[]), ...(r.linked_blobs ?? [])])
      out.add(sha);
  }
  return out;
}

export function planOf(c: CheckedBundle, blobs: BlobStore, dryRun: boolean, datasets: DatasetImport[] = [], files: DatasetFilesPlan = NO_FILES): ImportPlan {
  const b = c.bundle;
  let fresh = 0;
  let freshBytes = 0;
  const used = runBlobs(b);
  for (const sha of used) {
    if (!blobs.has(sha)) {
      fresh += 1;
      freshBytes += c.staging.blob(sha)?.size ?? 0;
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
      events: c.eventCount,
      experiments: b.experiments?.length ?? 0,
      experiment_cases: (b.experiments ?? []).reduce((n, e) => n + e.cases.length, 0),
    },
    blobs: { new: fresh, already_stored: used.size - fresh, bytes_new: freshBytes },
    interrupted_runs: b.runs.filter((r) => ACTIVE_STATES.includes(r.status as RunStatus)).length,
    redacted_metadata_keys: [...redacted].sort(),
    cancelled_experiments: (b.experiments ?? []).filter((e) => e.status === 'running').length,
    datasets,
    dataset_files: files,
  };
}

interface ImportIds {
  /** Bundle id → new id. */
  sessions: Record<string, string>;
  runs: Record<string, string>;
  lastSeq: Map<string, number>;
  project: string | null;
  now: string;
}

/** A bundle's run as stored under its new ids; an imported run is never active: one
 * exported mid-run arrives interrupted. Its fork origin and edit (D-97) come along. */
function importedRun(r: ParsedBundle['runs'][number], ids: ImportIds): RunRecord {
  const active = ACTIVE_STATES.includes(r.status as RunStatus);
  const fork = r.fork ? { ...r.fork, run_id: ids.runs[r.fork.run_id], session_id: ids.sessions[r.fork.session_id] } : null;
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
    forked_from: fork ? JSON.stringify(fork) : null,
    edited_state: r.edit ? JSON.stringify(r.edit) : null,
  };
}

/** 409 when the local database is newer than this build (nothing is written then). */
export function assertSupportedStore(store: PlaygroundStore): void {
  if (store.schemaVersion > SUPPORTED_SCHEMA_VERSION) {
    throw new PlaygroundError(
      'unsupported_database_version',
      `the local database has schema version ${store.schemaVersion}, newer than this build supports (${SUPPORTED_SCHEMA_VERSION}); it was left unmodified`,
      { database_version: store.schemaVersion, supported_version: SUPPORTED_SCHEMA_VERSION },
    );
  }
}

/** The experiments store and what happens to each dataset and dataset file (already written). */
export interface ImportEvals {
  experiments: ExperimentStore;
  datasets: DatasetImport[];
  files?: DatasetFilesPlan;
}

const EVENT_BATCH = 1000;

/** Writes the checked bundle under new ids; answers the plan and the id mapping. */
export function writeImport(store: PlaygroundStore, blobs: BlobStore, c: CheckedBundle, evals?: ImportEvals, now = new Date().toISOString()): ImportResult {
  assertSupportedStore(store);
  if (c.bundle.experiments?.length && !evals) throw new Error('a bundle with experiments needs the experiments store');
  const plan = planOf(c, blobs, false, evals?.datasets ?? [], evals?.files);
  const b = c.bundle;
  const sessions: Record<string, string> = {};
  const runs: Record<string, string> = {};
  for (const s of [...b.sessions].sort((x, y) => (x.session_id < y.session_id ? -1 : 1))) sessions[s.session_id] = newSessionId();
  for (const r of [...b.runs].sort((x, y) => (x.run_id < y.run_id ? -1 : 1))) runs[r.run_id] = newRunId();

  let experiments: Record<string, string> = {};
  const moved = c.staging.moveInto(blobs, runBlobs(b));
  try {
    store.transaction(() => {
      for (const s of b.sessions) store.insertSessionRecord({ ...s, session_id: sessions[s.session_id] });
      const ids: ImportIds = { sessions, runs, lastSeq: c.lastSeq, project: plan.project, now };
      for (const r of b.runs) {
        const record = importedRun(r, ids);
        store.insertRunRecord(record);
        const linked = [...inlineHashes(record.input_parts), ...inlineHashes(record.output_parts), ...(r.linked_blobs ?? [])];
        for (const sha of linked) store.linkBlob(record.run_id, sha, c.staging.blob(sha)!.size, now);
      }
      for (const s of b.sessions) {
        if (!s.branch_of) continue;
        const br = s.branch_of;
        store.branches.insert({
          session_id: sessions[s.session_id],
          origin_session_id: sessions[br.session_id],
          origin_run_id: runs[br.run_id],
          root_session_id: sessions[br.root_session_id],
          created_at: s.created_at,
        });
      }
      for (const page of c.staging.events(EVENT_BATCH)) {
        store.insertEvents(
          page.map((e) => {
            const id = runs[e.run_id];
            return { run_id: id, seq: e.seq, kind: e.kind, body: JSON.stringify({ ...(JSON.parse(e.body) as object), run_id: id }) };
          }),
        );
      }
      // A run exported mid-run gets the terminal event its stream never had (insertEvents
      // advances the run's last_seq to it).
      for (const r of b.runs) {
        if (!ACTIVE_STATES.includes(r.status as RunStatus)) continue;
        const id = runs[r.run_id];
        const seq = (c.lastSeq.get(r.run_id) ?? 0) + 1;
        const body = JSON.stringify({ seq, run_id: id, ts: now, kind: 'run.status', status: 'interrupted', reason: 'exported_while_active' });
        store.insertEvents([{ run_id: id, seq, kind: 'run.status', body }]);
      }
      if (evals) experiments = insertExperiments(b, evals.datasets, evals.experiments, { sessions, runs, project: plan.project, now });
    });
  } catch (err) {
    for (const sha of moved) blobs.delete(sha);
    throw err;
  }
  const datasets = Object.fromEntries((evals?.datasets ?? []).map((d) => [d.name, d.as]));
  return { ...plan, mapping: { sessions, runs, experiments, datasets } };
}
