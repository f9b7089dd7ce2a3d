// POST /bundles/import (spec 4.3 rule 7, 9.4): everything is checked before anything is
// written. While the body streams (read.ts, D-96) each event and each blob (its key, base64,
// size and sha256) is checked and staged; then the rest: the shape, every id relation (runs to
// sessions, parents, events to runs, file parts and linked blobs to blobs), the optional
// datasets and experiments (import-evals.ts) and the keys of D-97 (import-extras.ts). Writing
// is import-write.ts.
import { BUNDLE_FORMAT, BundleImportSchema, type ParsedBundle } from '../../../shared/bundle.ts';
import type { TaggedPart } from '../../../shared/playground.ts';
import { PlaygroundError } from '../errors.ts';
import { checkEvals } from './import-evals.ts';
import { checkExtras } from './import-extras.ts';
import { unsupportedFormat, type ReadBundle } from './read.ts';
import { MAX_PROBLEMS, pointer, type Problems, type Staging } from './staging.ts';
import { STREAMED } from './walker.ts';

export interface CheckedBundle {
  bundle: ParsedBundle;
  staging: Staging;
  /** Bundle run id → its highest event seq in the bundle. */
  lastSeq: Map<string, number>;
  eventCount: number;
}

export function invalid(problems: Problems): PlaygroundError {
  const n = problems.count;
  return new PlaygroundError(
    'invalid_bundle',
    `the bundle was not imported: ${Math.min(n, MAX_PROBLEMS)}${n >= MAX_PROBLEMS ? '+' : ''} problem${n === 1 ? '' : 's'}, nothing was written`,
    { problems: problems.list },
  );
}

/** Checks everything the walk left to check; answers the parsed bundle, or throws 400 with
 * every problem (JSON pointer and message). Writes nothing. */
export function checkBundle(read: ReadBundle): CheckedBundle {
  const { meta, staging } = read;
  const problems = staging.problems;
  const add = (path: string, message: string) => problems.add(path, message);
  if (problems.full) throw invalid(problems);
  if (meta.format !== BUNDLE_FORMAT) throw unsupportedFormat(meta.format);
  if (meta.events !== STREAMED) add('/events', 'expected an array of events');
  if (meta.blobs !== STREAMED) add('/blobs', 'expected an object of blobs by sha256');
  if (read.present.linked_blobs && meta.linked_blobs !== STREAMED) add('/linked_blobs', 'expected an object of blobs by sha256');
  const parsed = BundleImportSchema.safeParse(meta);
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
  const lastSeq = eventRelations(staging, runs, add);
  for (const sha of staging.keys.blobs) {
    if (/^[0-9a-f]{64}$/.test(sha) && !referenced.has(sha)) add(`/blobs${pointer([sha])}`, 'no file part of the bundle uses this blob');
  }
  for (const [sha, uses] of referenced) {
    const blob = staging.blobs.blobs.get(sha);
    for (const use of uses) {
      if (!staging.keys.blobs.has(sha)) add(`${use.path}/sha256`, `the file's bytes (blob ${sha}) are not in the bundle`);
      else if (blob && blob.size !== use.size) add(`${use.path}/size`, `the part says ${use.size} bytes, its blob has ${blob.size}`);
    }
  }
  checkExtras(b, staging, add);
  checkEvals(b, add);
  if (problems.count) throw invalid(problems);
  return { bundle: b, staging, lastSeq, eventCount: staging.eventCount };
}

/** Each staged event's run is in the bundle (the staging's unique key caught repeated seqs);
 * answers each run's highest seq. */
function eventRelations(staging: Staging, runs: Set<string>, add: (path: string, message: string) => void): Map<string, number> {
  const db = staging.db;
  const insert = db.prepare('INSERT OR IGNORE INTO runs (run_id) VALUES (?)');
  db.transaction(() => {
    for (const id of runs) insert.run(id);
  })();
  const stray = db
    .prepare<[number], { i: number; run_id: string; seq: number }>(
      'SELECT i, run_id, seq FROM ev WHERE run_id NOT IN (SELECT run_id FROM runs) ORDER BY i LIMIT ?',
    )
    .all(MAX_PROBLEMS);
  for (const e of stray) add(`/events/${e.i}/run_id`, `event ${e.seq} belongs to run '${e.run_id}', which is not in the bundle`);
  const rows = db.prepare<[], { run_id: string; last: number }>('SELECT run_id, MAX(seq) AS last FROM ev GROUP BY run_id').all();
  return new Map(rows.map((r) => [r.run_id, r.last]));
}
