// A dataset file (`evals/<name>.jsonl`, docs/evaluation.md) read into its cases with a
// diagnostic (file:line:column) for every line that is not a valid case, and a case written
// back as one line. A line with a problem is left out of the cases and never rewritten: the
// author's file stays as written until they fix it.
import { createHash } from 'node:crypto';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import type { z } from 'zod';
import { DatasetCaseSchema, DatasetHeaderSchema, type Dataset, type DatasetCase, type DatasetDiagnostic } from '../../../shared/datasets.ts';

export const DATASETS_DIR = 'evals';
export const DATASET_EXT = '.jsonl';

/** The project-relative file of a dataset. */
export const datasetFile = (name: string): string => `${DATASETS_DIR}/${name}${DATASET_EXT}`;

/** A dataset's name from its project-relative file, or null for any other file. */
export function datasetNameOf(file: string): string | null {
  const m = /^evals\/([A-Za-z0-9][A-Za-z0-9._-]*)\.jsonl$/.exec(file.replaceAll('\\', '/'));
  return m ? m[1]! : null;
}

export const datasetHash = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

function issuePath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
}

function schemaDiagnostics(file: string, line: number, error: z.ZodError): DatasetDiagnostic[] {
  return error.issues.map((i) => {
    const field = issuePath(i.path);
    return { file, line, ...(field ? { field } : {}), message: field ? `${field}: ${i.message}` : i.message };
  });
}

/** Reads a dataset file's text. */
export function parseDataset(name: string, text: string): Dataset {
  const file = datasetFile(name);
  const diagnostics: DatasetDiagnostic[] = [];
  const cases: DatasetCase[] = [];
  const seen = new Map<string, number>();
  let description: string | null = null;
  let tags: string[] = [];
  let first = true;
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    const body = raw.replace(/\r$/, '');
    if (body.trim() === '') return;
    const errors: ParseError[] = [];
    const value: unknown = parse(body, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    if (errors.length) {
      const e = errors[0]!;
      diagnostics.push({ file, line, column: e.offset + 1, message: `not valid JSON: ${printParseErrorCode(e.error)}` });
      first = false;
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      diagnostics.push({ file, line, message: 'each line is one JSON object: a case (or, on the first line, {"dataset": {...}})' });
      first = false;
      return;
    }
    if ('dataset' in value) {
      if (!first) diagnostics.push({ file, line, field: 'dataset', message: 'the {"dataset": ...} line must be the first line of the file' });
      else {
        const header = DatasetHeaderSchema.safeParse(value);
        if (!header.success) diagnostics.push(...schemaDiagnostics(file, line, header.error));
        else {
          description = header.data.dataset.description ?? null;
          tags = header.data.dataset.tags ?? [];
        }
      }
      first = false;
      return;
    }
    first = false;
    const parsed = DatasetCaseSchema.safeParse(value);
    if (!parsed.success) {
      diagnostics.push(...schemaDiagnostics(file, line, parsed.error));
      return;
    }
    const earlier = seen.get(parsed.data.id);
    if (earlier !== undefined) {
      diagnostics.push({ file, line, field: 'id', message: `case id "${parsed.data.id}" is already used on line ${earlier}` });
      return;
    }
    seen.set(parsed.data.id, line);
    cases.push(parsed.data);
  });
  return { name, file, description, tags, cases, hash: datasetHash(text), diagnostics };
}

/** One case as the line a dataset file holds (keys in the schema's order, no spaces). */
export function caseLine(c: DatasetCase): string {
  return JSON.stringify(DatasetCaseSchema.parse(c));
}

/** A dataset file's text with `c` appended as its last line (a final newline kept). */
export function appendCase(text: string, c: DatasetCase): string {
  const base = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  return `${base}${caseLine(c)}\n`;
}

/** A new dataset file's text. */
export function newDatasetText(description: string | null): string {
  return description ? `${JSON.stringify({ dataset: { description } })}\n` : '';
}

/** A case id not yet used in `cases`, from a base such as the run's first words. */
export function freshCaseId(base: string, cases: readonly DatasetCase[]): string {
  const stem =
    base
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'case';
  const used = new Set(cases.map((c) => c.id));
  if (!used.has(stem)) return stem;
  for (let n = 2; ; n++) if (!used.has(`${stem}-${n}`)) return `${stem}-${n}`;
}
