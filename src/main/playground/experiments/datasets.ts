// The project's datasets (docs/evaluation.md): `evals/<name>.jsonl` files read with their
// diagnostics, created, and grown by "Add to dataset" from a run. Every write goes through
// the source view's save path (studio/project/save.ts), with its conflict check.
import fs from 'node:fs';
import path from 'node:path';
import type { CaseInput, CasePart, Dataset, DatasetCase } from '../../../shared/datasets.ts';
import type { AddCaseBody, AddCaseReply, DatasetSummary } from '../../../shared/experiments.ts';
import type { InputPart, TaggedPart } from '../../../shared/playground.ts';
import { isActive } from '../../../shared/playground.ts';
import { PlaygroundError, notFound } from '../errors.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { PlaygroundStore, RunRecord } from '../store/store.ts';
import { appendCase, DATASET_EXT, DATASETS_DIR, datasetFile, freshCaseId, newDatasetText, parseDataset } from '../evals/dataset-file.ts';
import { outputText } from '../evals/assertions.ts';

/** The save path of project files: the source view's (studio/project/save.ts). */
export type SaveFile = (rel: string, content: string, baseSha256?: string | null) => Promise<{ sha256: string }>;

export interface DatasetServiceOptions {
  projectDir: string;
  store: PlaygroundStore;
  blobs: BlobStore;
  save: SaveFile;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export class DatasetService {
  /** The last parse of each dataset file, with the text it was parsed from. */
  private readonly parsed = new Map<string, { text: string; dataset: Dataset }>();

  constructor(private readonly o: DatasetServiceOptions) {}

  /** The project folder (a bundle's files beside datasets are written under its `evals/`). */
  get projectDir(): string {
    return this.o.projectDir;
  }

  private abs(rel: string): string {
    return path.join(this.o.projectDir, rel);
  }

  names(): string[] {
    let entries: string[];
    try {
      entries = fs.readdirSync(this.abs(DATASETS_DIR));
    } catch {
      return [];
    }
    return entries
      .filter((f) => f.endsWith(DATASET_EXT) && NAME.test(f.slice(0, -DATASET_EXT.length)))
      .map((f) => f.slice(0, -DATASET_EXT.length))
      .sort();
  }

  list(): DatasetSummary[] {
    return this.names().flatMap((name) => {
      const d = this.read(name);
      if (!d) return [];
      const { cases, diagnostics, ...rest } = d;
      return [{ ...rest, case_count: cases.length, diagnostics_count: diagnostics.length }];
    });
  }

  /** Every dataset file's diagnostics (GET /api/project `dataset_diagnostics`). */
  diagnostics(): Dataset['diagnostics'] {
    return this.names().flatMap((n) => this.read(n)?.diagnostics ?? []);
  }

  /** The dataset as on disk, or undefined when there is no such file. */
  read(name: string): Dataset | undefined {
    if (!NAME.test(name)) return undefined;
    let text: string;
    try {
      text = fs.readFileSync(this.abs(datasetFile(name)), 'utf8');
    } catch {
      this.parsed.delete(name);
      return undefined;
    }
    // An unchanged file is not parsed again: an experiment started again on the same dataset
    // (and the project status's diagnostics) reads it back from here.
    const known = this.parsed.get(name);
    if (known?.text === text) return known.dataset;
    const dataset = parseDataset(name, text);
    this.parsed.set(name, { text, dataset });
    return dataset;
  }

  /** The dataset file's text as on disk, or undefined when there is no such file. */
  text(name: string): string | undefined {
    if (!NAME.test(name)) return undefined;
    try {
      return fs.readFileSync(this.abs(datasetFile(name)), 'utf8');
    } catch {
      return undefined;
    }
  }

  /** Writes a dataset file through the save path (a bundle's dataset, a new file). */
  async write(name: string, text: string): Promise<void> {
    fs.mkdirSync(this.abs(DATASETS_DIR), { recursive: true });
    await this.o.save(datasetFile(name), text);
  }

  /** Removes a dataset file this studio just wrote (an import that failed after it). */
  removeFile(name: string): void {
    fs.rmSync(this.abs(datasetFile(name)), { force: true });
  }

  get(name: string): Dataset {
    const d = this.read(name);
    if (!d) throw notFound('dataset', name);
    return d;
  }

  async create(name: string, description: string | undefined): Promise<Dataset> {
    if (this.read(name)) throw new PlaygroundError('dataset_exists', `the dataset ${name} exists (${datasetFile(name)})`, { dataset: name });
    fs.mkdirSync(this.abs(DATASETS_DIR), { recursive: true });
    await this.o.save(datasetFile(name), newDatasetText(description?.trim() || null));
    return this.get(name);
  }

  /** "Add to dataset": the run as a case appended to the file. */
  async addCase(name: string, body: AddCaseBody): Promise<AddCaseReply> {
    const dataset = this.get(name);
    const run = this.o.store.getRun(body.run_id);
    if (!run) throw notFound('run', body.run_id);
    if (isActive(run.status))
      throw new PlaygroundError('invalid_request', `run ${run.run_id} is still ${run.status}: add it once it ended`, { run_id: run.run_id });
    if (run.input_parts.length === 0) throw new PlaygroundError('invalid_request', `run ${run.run_id} has no input (a continue): add the run it continued`);
    const input = this.inputOf(name, run.input_parts, run.metadata);
    const id = body.case_id ?? freshCaseId(outputText(run.input_parts) || run.run_id, dataset.cases);
    if (dataset.cases.some((c) => c.id === id)) {
      throw new PlaygroundError('dataset_case_exists', `the dataset ${name} has a case "${id}"`, { dataset: name, case_id: id });
    }
    const history = this.historyOf(name, run);
    type RefPart = NonNullable<NonNullable<DatasetCase['expected']>['output']>['parts'][number];
    const parts = run.output_parts.flatMap((p): RefPart[] =>
      p.kind === 'text' ? [{ kind: 'text', text: p.text }] : p.kind === 'data' ? [{ kind: 'data', data: p.data }] : [],
    );
    const c: DatasetCase = {
      id,
      ...(body.description ? { description: body.description } : {}),
      ...(body.tags?.length ? { tags: body.tags } : {}),
      ...(history.length ? { history } : {}),
      input,
      expected: { output: { status: run.status, parts }, assertions: [{ type: 'matches_reference' }] },
    };
    const text = fs.readFileSync(this.abs(dataset.file), 'utf8');
    const next = appendCase(text, c);
    const saved = await this.o.save(dataset.file, next, body.base_hash ?? null);
    return { dataset: name, file: dataset.file, line: next.trimEnd().split('\n').length, case: c, hash: saved.sha256 };
  }

  /** The earlier user turns of the run's session (sends and resumes before it), oldest first. */
  private historyOf(name: string, run: RunRecord): CaseInput[] {
    const turns = this.o.store.transcript(run.session_id, null, 1000).items;
    return turns
      .filter((t) => t.run_id < run.run_id && (t.origin === 'send' || t.origin === 'resume') && t.input_parts.length > 0)
      .map((t) => this.inputOf(name, t.input_parts, {}));
  }

  private inputOf(name: string, tagged: readonly TaggedPart[], metadata: Record<string, unknown>): CaseInput {
    const parts: CasePart[] = tagged.flatMap((p): CasePart[] => {
      if (p.kind === 'text') return [{ kind: 'text', text: p.text }];
      if (p.kind === 'data') return [{ kind: 'data', data: p.data }];
      if (p.kind !== 'file') return [];
      const meta = { ...(p.name ? { name: p.name } : {}), ...(p.mime_type ? { mime_type: p.mime_type } : {}) };
      if (p.source === 'uri') return [{ kind: 'file', uri: p.uri, ...meta }];
      // Inline bytes go beside the dataset, so the case is reviewable with the code.
      const rel = `${name}.files/${p.sha256.slice(0, 12)}-${(p.name ?? 'file').replace(/[^A-Za-z0-9._-]/g, '_')}`;
      const abs = this.abs(path.join(DATASETS_DIR, rel));
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      if (this.o.blobs.has(p.sha256)) fs.writeFileSync(abs, this.o.blobs.get(p.sha256));
      return [{ kind: 'file', path: rel, ...meta }];
    });
    const meta = Object.keys(metadata).length ? { metadata } : {};
    if (parts.length === 1 && parts[0]!.kind === 'text') return { text: parts[0]!.text, ...meta };
    return { parts, ...meta };
  }

  /** A case input as the request parts of a run; a file beside the dataset is read inline. */
  requestParts(input: CaseInput): InputPart[] {
    if (input.text !== undefined) return [{ kind: 'text', text: input.text }];
    return (input.parts ?? []).map((p): InputPart => {
      if (p.kind !== 'file') return p;
      const meta = { ...(p.name ? { name: p.name } : {}), ...(p.mime_type ? { mime_type: p.mime_type } : {}) };
      if (p.uri) return { kind: 'file', uri: p.uri, ...meta };
      const abs = path.resolve(this.abs(DATASETS_DIR), p.path ?? '');
      if (!p.path || !abs.startsWith(this.abs(DATASETS_DIR) + path.sep))
        throw new Error(`file part path ${JSON.stringify(p.path)} is not inside ${DATASETS_DIR}/`);
      return { kind: 'file', bytes_base64: fs.readFileSync(abs).toString('base64'), name: p.name ?? path.basename(abs), ...meta };
    });
  }
}
