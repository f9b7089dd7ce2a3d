// A case's verdict (docs/evaluation.md): its last run's outcome checked against the case's
// assertions (the reference, or "the run did not fail" when it has neither), as the case's
// result row; and the one-line preview of a case's input its row shows.
import fs from 'node:fs';
import path from 'node:path';
import type { Assertion, DatasetCase } from '../../../shared/datasets.ts';
import { checkAssertions, type Judge } from '../evals/assertions.ts';
import { previewOf, type RunRecord } from '../store/store.ts';
import type { CasePatch } from './store.ts';

/** A case with no assertions passes when its run did not fail. */
const DEFAULT_ASSERTIONS: Assertion[] = [{ type: 'final_state', state: 'completed' }];

/** The result of case `c` whose last run is `run`. */
export async function caseVerdict(c: DatasetCase, run: RunRecord, o: { projectDir: string; judge: Judge | null }): Promise<CasePatch> {
  const outcome = {
    status: run.status,
    reason: run.reason,
    error_code: errorCodeOf(run),
    output_parts: run.output_parts,
    duration_ms: run.started_at && run.ended_at ? Date.parse(run.ended_at) - Date.parse(run.started_at) : null,
    scores: run.scores,
  };
  const list = c.expected?.assertions ?? (c.expected?.output ? [{ type: 'matches_reference' as const }] : DEFAULT_ASSERTIONS);
  const assertions = await checkAssertions(list, outcome, {
    reference: c.expected?.output,
    readSchemaFile: (file) => readSchema(o.projectDir, file),
    judge: o.judge,
  });
  const failed = assertions.some((a) => a.status === 'fail' || a.status === 'error');
  return {
    status: failed ? 'failed' : 'passed',
    run_status: run.status,
    run_reason: run.reason,
    error_code: outcome.error_code,
    duration_ms: outcome.duration_ms,
    assertions,
    scores: run.scores,
  };
}

/** The case's input on one line: its text, else its first DataPart's JSON. */
export function casePreview(c: DatasetCase): string {
  const text = c.input.text ?? c.input.parts?.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join(' ');
  if (text) return previewOf([{ kind: 'text', text }]) ?? text;
  const data = c.input.parts?.find((p) => p.kind === 'data');
  return data && data.kind === 'data' ? JSON.stringify(data.data).slice(0, 120) : c.id;
}

function errorCodeOf(run: RunRecord): string | null {
  for (const p of run.output_parts) if (p.kind === 'error' && p.code) return p.code;
  return null;
}

/** A `json_schema` assertion's `schema_file`: a project file, read from disk. */
function readSchema(projectDir: string, file: string): Record<string, unknown> | null {
  const root = path.resolve(projectDir);
  const abs = path.resolve(root, file);
  if (!abs.startsWith(root + path.sep)) return null;
  try {
    const v = JSON.parse(fs.readFileSync(abs, 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
