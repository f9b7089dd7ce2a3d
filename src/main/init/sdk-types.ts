// The SDK's type declarations, written into a new project by `init`: the project has no
// dependency on agent-studio (it is not in a registry, so a teammate's `npm install` could not
// fetch it); the runtime that opens the project provides `agent-studio/sdk` at run time
// (docs/decisions.md D-33, D-45) and the project's tsconfig maps the import to these files for
// its editor and `tsc` (docs/project-format.md, "Dependencies").
import fs from 'node:fs';
import path from 'node:path';
import { Project, ts, type Diagnostic } from 'ts-morph';

/** Where the declarations go in the project, and the path its tsconfig maps the SDK to. */
export const SDK_TYPES_DIR = 'types/agent-studio-sdk';
export const SDK_TYPES_ENTRY = `./${SDK_TYPES_DIR}/index.d.ts`;

const SDK_DIR = path.resolve(import.meta.dirname, '../../sdk');
/** The declarations `npm pack` ships (prepack writes them, postpack removes them): inside an
 * installed package TypeScript cannot emit them, because the SDK's framework types would be
 * named through `agent-studio/node_modules/...`, a path no project has. */
export const PACKED_SDK_TYPES = path.resolve(SDK_DIR, '../../resources/sdk-types');
const STUDIO_VERSION = (JSON.parse(fs.readFileSync(path.resolve(SDK_DIR, '../../package.json'), 'utf8')) as { version: string }).version;

/** The TypeScript version the declarations are emitted with (a project may pin it). */
export const TYPESCRIPT_VERSION = ts.version;

let emitted: Map<string, string> | null = null;

/**
 * The declarations of the SDK, file name → text (emitted once per process: a few seconds).
 * ts-morph's Project brings TypeScript's lib files (the package installs no `typescript`), and
 * any type error refuses the emit: an unresolved type would be declared as `{}` or `any`.
 */
export function sdkDeclarations(): Map<string, string> {
  if (emitted) return emitted;
  if (fs.existsSync(path.join(PACKED_SDK_TYPES, 'index.d.ts'))) {
    emitted = new Map(fs.readdirSync(PACKED_SDK_TYPES).map((f) => [f, fs.readFileSync(path.join(PACKED_SDK_TYPES, f), 'utf8')]));
    return emitted;
  }
  const outDir = path.join(SDK_DIR, '__declarations__');
  const project = new Project({
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      strict: true,
      skipLibCheck: true,
      declaration: true,
      emitDeclarationOnly: true,
      // Node's own modules (`node:crypto`) need no @types/node, which an install of the
      // package does not have; the declarations do not mention them.
      types: [],
      rootDir: SDK_DIR,
      outDir,
    },
    skipAddingFilesFromTsConfig: true,
  });
  for (const f of fs.readdirSync(SDK_DIR)) {
    if (f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts')) project.addSourceFileAtPath(path.join(SDK_DIR, f));
  }
  const problems = project.getPreEmitDiagnostics().filter((d) => !/'node:[a-z_/]+'/.test(messageOf(d)));
  const result = project.emitToMemory({ emitOnlyDtsFiles: true });
  if (problems.length > 0 || result.getEmitSkipped()) {
    const why = problems.map((d) => `${d.getSourceFile()?.getBaseName() ?? ''} ${messageOf(d)}`).join('; ');
    throw new Error(`could not write the SDK's types: ${why || 'the emit was skipped'}`);
  }
  const header = `// The types of agent-studio/sdk (Agent Studio ${STUDIO_VERSION}), written by \`agent-studio init\`.\n// The studio and runtime that open this project provide the SDK's code; see README.md.\n`;
  const out = new Map<string, string>();
  for (const file of result.getFiles()) out.set(path.relative(outDir, file.filePath).split(path.sep).join('/'), header + file.text);
  emitted = out;
  return out;
}

function messageOf(d: Diagnostic): string {
  const m = d.getMessageText();
  return typeof m === 'string' ? m : m.getMessageText();
}

/** Writes the SDK's declarations under `dir`; returns the project-relative files written. */
export function writeSdkTypes(dir: string): string[] {
  return writeDeclarations(path.join(dir, SDK_TYPES_DIR)).map((name) => `${SDK_TYPES_DIR}/${name}`);
}

/** Writes the SDK's declarations into the folder `target` (emptied first); returns their names. */
export function writeDeclarations(target: string): string[] {
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  const written: string[] = [];
  for (const [name, text] of sdkDeclarations()) {
    fs.writeFileSync(path.join(target, name), text);
    written.push(name);
  }
  return written;
}
