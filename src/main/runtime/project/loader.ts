// project/ owns the agent project: loading and validating it (manifest, contracts, modules,
// diagnostics), the framework packages it shares with the runtime, the registry of numbered
// generations with their compiled graph, the graph's view and edges, and node failures.
//
// Loads and validates an agent project: the manifest, its input contracts, the graph
// module (TypeScript, no build step, through tsx), evaluators and the error catalogue.
// Every problem becomes a diagnostic naming the file, the field or line, and what is wrong.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { register as registerTsx } from 'tsx/esm/api';
import { register as registerHooks } from 'node:module';
import { lineCol, locateJson } from '../../common/json-locate.ts';
import { nativeImport } from './native-import.mjs';
import { printParseErrorCode, parse as parseJsonc, type ParseError } from 'jsonc-parser';
import type { ValidateFunction } from 'ajv';
import { createContractAjv } from '../../../shared/contracts.ts';
import { ManifestSchema, InputContractSchema, MANIFEST_FILE, type Manifest, type InputContract, type EvaluatorDecl } from './manifest.ts';
import { formatFieldPath } from './manifest-fields.ts';
import { manifestProblems } from './manifest-issues.ts';
import { missingFiles } from './manifest-files.ts';
import { moduleLoadDiagnostic } from './module-errors.ts';
import { ProjectLoadError, type Diagnostic } from './diagnostics.ts';
import { SHARED_PACKAGES, frameworkDiagnostics } from './framework.ts';
import { defineErrorCatalogue, type ErrorRaiser } from '../../../sdk/errors.ts';

export { ProjectLoadError, formatDiagnostic, type Diagnostic } from './diagnostics.ts';

export interface LoadedContract {
  decl: InputContract;
  validate: ValidateFunction;
}

export interface LoadedEvaluator {
  decl: EvaluatorDecl;
  run: EvaluatorFn;
}

export interface EvaluatorInput {
  request: unknown;
  response: unknown;
  state: unknown;
  signal: AbortSignal;
}
export interface EvaluatorOutput {
  score: number | null;
  reason?: string;
  passStatus?: string;
  scope?: string;
  node?: string;
}
export type EvaluatorFn = (input: EvaluatorInput) => Promise<EvaluatorOutput> | EvaluatorOutput;

/** A component of the project, for the registry (spec 4.2 registry metadata). */
export interface Component {
  kind: 'manifest' | 'graph' | 'module' | 'prompt' | 'contract' | 'evaluator' | 'mcp_server';
  name: string;
  /** Project-relative source file. */
  file: string;
  hash: string;
}

export interface LoadedProject {
  dir: string;
  manifest: Manifest;
  contracts: Map<string, LoadedContract>;
  /** The graph export: an uncompiled StateGraph or a factory returning one. */
  graphExport: unknown;
  /** `export const ARTIFACT_NAME` of the graph module: the adapter's artifact-name constant. */
  adapterArtifactName?: string;
  evaluators: LoadedEvaluator[];
  errors: ErrorRaiser;
  prompts: Record<string, string>;
  components: Component[];
}

function sha256(buf: Buffer | string): string {
  return crypto.createHash('sha256').update(buf).digest('hex');
}

/** A diagnostic about the manifest field at `fieldPath`, at its line (or its nearest parent's). */
function fieldDiagnostic(text: string, fieldPath: (string | number)[], message: string): Diagnostic {
  const at = locateJson(text, fieldPath);
  return { file: MANIFEST_FILE, ...(at ? { line: at.line, column: at.column } : {}), field: formatFieldPath(fieldPath), message };
}

/** The manifest's JSON; a file that is missing or not JSON stops here (nothing else can be checked). */
function readManifestJson(dir: string): { raw: unknown; text: string } {
  const file = path.join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ProjectLoadError([
      { file: MANIFEST_FILE, message: `no ${MANIFEST_FILE} in ${dir}: an agent project needs a manifest (see docs/project-format.md)` },
    ]);
  }
  const errors: ParseError[] = [];
  const raw: unknown = parseJsonc(text, errors, { allowTrailingComma: false, disallowComments: true });
  if (errors.length > 0) {
    throw new ProjectLoadError(
      errors.map((e) => ({ file: MANIFEST_FILE, ...lineCol(text, e.offset), message: `invalid JSON: ${printParseErrorCode(e.error)}` })),
    );
  }
  return { raw, text };
}

/** The sections of an invalid manifest that are valid on their own, so their own checks (a
 * contract's JSON Schema, the error catalogue) still run in the same pass. */
function validSections(raw: unknown): Pick<Manifest, 'errorCatalogue'> & { contracts: [number, InputContract][] } {
  const m = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const contracts: [number, InputContract][] = [];
  if (Array.isArray(m.inputContracts)) {
    m.inputContracts.forEach((item, i) => {
      const parsed = InputContractSchema.safeParse(item);
      if (parsed.success) contracts.push([i, parsed.data]);
    });
  }
  const catalogue = ManifestSchema.shape.errorCatalogue.safeParse(m.errorCatalogue);
  return { contracts, errorCatalogue: catalogue.success ? catalogue.data : {} };
}

/** Input contracts: each a JSON Schema that must compile. Missing files are reported by missingFiles. */
function loadContracts(
  dir: string,
  text: string,
  decls: [number, InputContract][],
  components: Component[],
  diagnostics: Diagnostic[],
): Map<string, LoadedContract> {
  const ajv = createContractAjv();
  const contracts = new Map<string, LoadedContract>();
  for (const [i, decl] of decls) {
    let schema = decl.jsonSchema;
    let file = MANIFEST_FILE;
    if (!schema && decl.file) {
      file = decl.file;
      if (!fs.existsSync(path.join(dir, decl.file))) continue;
      try {
        const raw = fs.readFileSync(path.join(dir, decl.file), 'utf8');
        schema = JSON.parse(raw);
        components.push({ kind: 'contract', name: decl.schema, file: decl.file, hash: sha256(raw) });
      } catch (err) {
        diagnostics.push(fieldDiagnostic(text, ['inputContracts', i, 'file'], `cannot read JSON Schema: ${(err as Error).message}`));
        continue;
      }
    }
    if (!schema) {
      diagnostics.push(fieldDiagnostic(text, ['inputContracts', i], 'give the JSON Schema inline (jsonSchema) or as a file'));
      continue;
    }
    if (contracts.has(decl.schema)) {
      diagnostics.push(fieldDiagnostic(text, ['inputContracts', i, 'schema'], `duplicate contract schema id '${decl.schema}'`));
      continue;
    }
    try {
      contracts.set(decl.schema, { decl, validate: ajv.compile(schema) });
    } catch (err) {
      diagnostics.push({ ...fieldDiagnostic(text, ['inputContracts', i], `invalid JSON Schema: ${(err as Error).message}`), file });
    }
  }
  return contracts;
}

/** The same problem reported twice (two evaluators in one module that does not load) once. */
function unique(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = JSON.stringify([d.file, d.line, d.column, d.field, d.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The folder of the agent-studio package that runs the project (a checkout or an install). */
const RUNTIME_ROOT = path.resolve(import.meta.dirname, '../../../..');

let generationCounter = 0;
const HOOKS_KEY = Symbol.for('agent-studio.loader-hooks');

/** TypeScript through tsx (once per process; the `agent-studio` bin registers it first),
 * plus the generation hook that gives each load fresh copies of project files only. */
function ensureHooks(): void {
  const g = globalThis as unknown as Record<symbol, boolean | undefined>;
  if (g[HOOKS_KEY]) return;
  // Stacks of project code show TypeScript positions (tsx emits inline source maps): a failing
  // node is reported at its line in the author's file (docs/runtime-traces.md).
  process.setSourceMapsEnabled(true);
  if (!g[Symbol.for('agent-studio.tsx')]) {
    registerTsx();
    g[Symbol.for('agent-studio.tsx')] = true;
  }
  registerHooks(new URL('./generation-hooks.mjs', import.meta.url), {
    data: {
      runtimeRoot: pathToFileURL(`${RUNTIME_ROOT}${path.sep}`).href,
      runtimeParent: pathToFileURL(path.join(RUNTIME_ROOT, 'package.json')).href,
      shared: SHARED_PACKAGES,
    },
  });
  g[HOOKS_KEY] = true;
}

/** Imports a project module for one generation: the project's own files load afresh (so a
 * reload sees edits), packages are shared. */
async function importFresh(dir: string, rel: string, generation: number): Promise<Record<string, unknown>> {
  const abs = path.resolve(dir, rel);
  if (!fs.existsSync(abs)) throw new Error(`file not found: ${rel}`);
  ensureHooks();
  const url = new URL(pathToFileURL(abs).href);
  url.searchParams.set('agent-gen', String(generation));
  url.searchParams.set('agent-root', pathToFileURL(dir).pathname);
  return nativeImport(url.href);
}

const SOURCE_EXT = /\.(?:ts|mts|cts|tsx|js|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', 'out', 'coverage']);

/** Every source file of the project, for the registry (a change to any of them rebuilds). */
function projectSources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIP_DIRS.has(entry.name)) continue;
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (SOURCE_EXT.test(entry.name) && !/\.test\.[cm]?[jt]s$/.test(entry.name)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

export async function loadProject(projectDir: string): Promise<LoadedProject> {
  const dir = path.resolve(projectDir);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new ProjectLoadError([{ file: '.', message: `project folder ${dir} does not exist` }]);
  }
  // Every problem of the manifest in one pass: its schema, the files it names, its contracts
  // and error catalogue. The code is loaded only once the manifest is sound.
  const { raw, text } = readManifestJson(dir);
  const parsed = ManifestSchema.safeParse(raw);
  const diagnostics: Diagnostic[] = [];
  if (!parsed.success) {
    for (const p of manifestProblems(ManifestSchema, parsed.error.issues, raw)) diagnostics.push(fieldDiagnostic(text, p.path, p.message));
  }
  for (const p of missingFiles(dir, raw)) diagnostics.push(fieldDiagnostic(text, p.path, p.message));
  diagnostics.push(...frameworkDiagnostics(dir));
  const components: Component[] = [{ kind: 'manifest', name: MANIFEST_FILE, file: MANIFEST_FILE, hash: sha256(text) }];
  const sections = parsed.success
    ? { contracts: parsed.data.inputContracts.map((c, i): [number, InputContract] => [i, c]), errorCatalogue: parsed.data.errorCatalogue }
    : validSections(raw);
  const contracts = loadContracts(dir, text, sections.contracts, components, diagnostics);

  let errors: ErrorRaiser = defineErrorCatalogue({});
  try {
    errors = defineErrorCatalogue(sections.errorCatalogue);
  } catch (err) {
    diagnostics.push(fieldDiagnostic(text, ['errorCatalogue'], (err as Error).message));
  }
  if (!parsed.success || diagnostics.length) throw new ProjectLoadError(unique(diagnostics));
  const manifest = parsed.data;

  const prompts: Record<string, string> = {};
  for (const [name, rel] of Object.entries(manifest.prompts)) {
    const body = fs.readFileSync(path.join(dir, rel), 'utf8'); // exists: missingFiles checked it
    prompts[name] = body;
    components.push({ kind: 'prompt', name, file: rel, hash: sha256(body) });
  }

  // The graph module.
  generationCounter += 1;
  const generation = generationCounter;
  let graphExport: unknown;
  let adapterArtifactName: string | undefined;
  try {
    const mod = await importFresh(dir, manifest.graph.entry, generation);
    graphExport = mod[manifest.graph.export];
    if (typeof mod.ARTIFACT_NAME === 'string' && mod.ARTIFACT_NAME) adapterArtifactName = mod.ARTIFACT_NAME;
    if (graphExport === undefined) {
      const names = Object.keys(mod).join(', ') || 'none';
      diagnostics.push({ file: manifest.graph.entry, field: 'graph.export', message: `no export named '${manifest.graph.export}' (exports: ${names})` });
    } else if (!isGraphLike(graphExport) && typeof graphExport !== 'function') {
      diagnostics.push({
        file: manifest.graph.entry,
        field: 'graph.export',
        message: `export '${manifest.graph.export}' must be a StateGraph (not compiled) or a function returning one`,
      });
    }
  } catch (err) {
    diagnostics.push(moduleLoadDiagnostic(dir, manifest.graph.entry, err));
  }

  // Evaluators, in manifest order (spec 4.1 rule 5).
  const evaluators: LoadedEvaluator[] = [];
  for (const [i, decl] of manifest.evaluators.entries()) {
    try {
      const mod = await importFresh(dir, decl.module, generation);
      const fn = mod[decl.export];
      if (typeof fn !== 'function') {
        diagnostics.push({ file: decl.module, field: formatFieldPath(['evaluators', i, 'export']), message: `no function exported as '${decl.export}'` });
        continue;
      }
      evaluators.push({ decl, run: fn as EvaluatorFn });
      components.push({ kind: 'evaluator', name: decl.name, file: decl.module, hash: sha256(fs.readFileSync(path.join(dir, decl.module))) });
    } catch (err) {
      diagnostics.push(moduleLoadDiagnostic(dir, decl.module, err));
    }
  }
  if (diagnostics.length) throw new ProjectLoadError(unique(diagnostics));

  const entryAbs = path.resolve(dir, manifest.graph.entry);
  for (const abs of projectSources(dir)) {
    const rel = path.relative(dir, abs);
    components.push({ kind: abs === entryAbs ? 'graph' : 'module', name: rel, file: rel, hash: sha256(fs.readFileSync(abs)) });
  }
  for (const server of manifest.mcpServers) {
    components.push({ kind: 'mcp_server', name: server.name, file: MANIFEST_FILE, hash: sha256(JSON.stringify(server)) });
  }
  return { dir, manifest, contracts, graphExport, adapterArtifactName, evaluators, errors, prompts, components };
}

export function isGraphLike(value: unknown): value is { compile: (...args: unknown[]) => unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { compile?: unknown }).compile === 'function';
}
