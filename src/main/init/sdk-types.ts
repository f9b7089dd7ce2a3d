// The SDK's type declarations, written into a new project by `init`: the project has no
// dependency on agent-studio (it is not in a registry, so a teammate's `npm install` could not
// fetch it); the runtime that opens the project provides `agent-studio/sdk` at run time
// (docs/decisions.md D-33, D-44) and the project's tsconfig maps the import to these files for
// its editor and `tsc` (docs/project-format.md, "Dependencies").
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';

/** Where the declarations go in the project, and the path its tsconfig maps the SDK to. */
export const SDK_TYPES_DIR = 'types/agent-studio-sdk';
export const SDK_TYPES_ENTRY = `./${SDK_TYPES_DIR}/index.d.ts`;

const SDK_DIR = path.resolve(import.meta.dirname, '../../sdk');
const STUDIO_VERSION = (JSON.parse(fs.readFileSync(path.resolve(SDK_DIR, '../../package.json'), 'utf8')) as { version: string }).version;

/** The TypeScript version the declarations are emitted with (a project may pin it). */
export const TYPESCRIPT_VERSION = ts.version;

let emitted: Map<string, string> | null = null;

/** The declarations of the SDK, file name → text (emitted once per process: a few seconds). */
export function sdkDeclarations(): Map<string, string> {
  if (emitted) return emitted;
  const files = fs
    .readdirSync(SDK_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .map((f) => path.join(SDK_DIR, f));
  const outDir = path.join(SDK_DIR, '__declarations__');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    strict: true,
    skipLibCheck: true,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: SDK_DIR,
    outDir,
  };
  const host = ts.createCompilerHost(options);
  const out = new Map<string, string>();
  const header = `// The types of agent-studio/sdk (Agent Studio ${STUDIO_VERSION}), written by \`agent-studio init\`.\n// The studio and runtime that open this project provide the SDK's code; see README.md.\n`;
  host.writeFile = (name, text) => out.set(path.relative(outDir, name).split(path.sep).join('/'), header + text);
  const result = ts.createProgram(files, options, host).emit(undefined, undefined, undefined, true);
  if (result.emitSkipped || out.size === 0) {
    const why = result.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('; ');
    throw new Error(`could not write the SDK's types: ${why || 'nothing emitted'}`);
  }
  emitted = out;
  return out;
}

/** Writes the SDK's declarations under `dir`; returns the project-relative files written. */
export function writeSdkTypes(dir: string): string[] {
  const target = path.join(dir, SDK_TYPES_DIR);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  const written: string[] = [];
  for (const [name, text] of sdkDeclarations()) {
    fs.writeFileSync(path.join(target, name), text);
    written.push(`${SDK_TYPES_DIR}/${name}`);
  }
  return written;
}
