// `agent-studio init [DIR] [--template minimal|support-desk] [--name NAME] [--force]`: a new
// agent project that runs as soon as its dependencies are installed (docs/project-format.md,
// "Your first agent in five minutes").
import fs from 'node:fs';
import path from 'node:path';
import { parseFlagsAndArgs, UsageError } from '../cli-args.ts';
import { runtimeVersion } from '../runtime/project/framework.ts';
import { TYPESCRIPT_VERSION, writeSdkTypes } from './sdk-types.ts';

/** The folder of the agent-studio package running this command. */
const STUDIO_ROOT = path.resolve(import.meta.dirname, '../../..');
const TEMPLATES = {
  minimal: path.join(STUDIO_ROOT, 'resources', 'templates', 'minimal'),
  'support-desk': path.join(STUDIO_ROOT, 'examples', 'support-desk'),
} as const;
export type TemplateName = keyof typeof TEMPLATES;

/** What may already be in the folder: a fresh `git init`, or a package.json that installed
 * agent-studio as a dev dependency (it is merged, not replaced). */
const ALLOWED_EXISTING = new Set(['.git', 'node_modules', 'package.json', 'package-lock.json']);
/** Files never copied from a template folder. */
const SKIP = new Set(['.agent-studio', '.env', 'node_modules', 'package.json', 'package-lock.json', 'tsconfig.json']);
/** Template files stored under another name (npm pack drops `.gitignore`). */
const RENAMED: Record<string, string> = { _gitignore: '.gitignore', '_env.example': '.env.example' };

export class InitError extends Error {}

export interface InitOptions {
  dir: string;
  template?: TemplateName;
  name?: string;
  force?: boolean;
}

export interface InitResult {
  dir: string;
  name: string;
  template: TemplateName;
  files: string[];
}

/** An agent name from a folder name: lower case, letters, digits and dashes. */
export function nameFromFolder(dir: string): string {
  const base = path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return base || 'my-agent';
}

function checkName(name: string): void {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
    throw new InitError(
      `--name '${name}' is not a valid agent name: use letters, digits, '_', '.' and '-' (it becomes the agent card's name and the contract ids)`,
    );
  }
}

function listFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(root, child));
    else out.push(child);
  }
  return out.sort();
}

/**
 * The package.json of the new project, merged into one that exists (its values win, except
 * `type`, which must be `module`). It has no dependency on agent-studio: the package is not in
 * a registry, so a teammate's `npm install` could not fetch it; the studio or runtime that
 * opens the project provides `agent-studio/sdk` (docs/decisions.md D-45).
 */
function packageJson(existing: Record<string, unknown> | null, name: string): Record<string, unknown> {
  const deps = (existing?.dependencies ?? {}) as Record<string, string>;
  const devDeps = (existing?.devDependencies ?? {}) as Record<string, string>;
  const scripts = (existing?.scripts ?? {}) as Record<string, string>;
  return {
    name,
    version: '0.1.0',
    private: true,
    ...existing,
    type: 'module',
    scripts: {
      studio: 'agent-studio serve --project .',
      start: 'agent-studio runtime --project .',
      typecheck: 'tsc --noEmit',
      ...scripts,
    },
    dependencies: {
      '@langchain/core': runtimeVersion('@langchain/core'),
      '@langchain/langgraph': runtimeVersion('@langchain/langgraph'),
      ...deps,
    },
    devDependencies: { typescript: TYPESCRIPT_VERSION, ...devDeps },
  };
}

export function initProject(o: InitOptions): InitResult {
  const dir = path.resolve(o.dir);
  const template: TemplateName = o.template ?? 'minimal';
  if (!(template in TEMPLATES)) throw new InitError(`unknown template '${template}': choose minimal or support-desk`);
  const name = o.name ?? nameFromFolder(dir);
  checkName(name);
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) throw new InitError(`${dir} is a file, not a folder`);
  const present = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => !ALLOWED_EXISTING.has(f)) : [];
  if (present.length > 0 && !o.force) {
    const shown = present.slice(0, 5).join(', ') + (present.length > 5 ? ', …' : '');
    throw new InitError(`${dir} is not empty (${shown}): choose an empty or new folder, or pass --force to write the project's files over what is there`);
  }
  const source = TEMPLATES[template];
  const files: string[] = [];
  fs.mkdirSync(dir, { recursive: true });
  for (const rel of listFiles(source)) {
    const target = RENAMED[path.basename(rel)] ? path.join(path.dirname(rel), RENAMED[path.basename(rel)]) : rel;
    let text = fs.readFileSync(path.join(source, rel), 'utf8');
    text = template === 'minimal' ? text.replaceAll('__AGENT_NAME__', name) : renameExample(target, text, name);
    fs.mkdirSync(path.dirname(path.join(dir, target)), { recursive: true });
    fs.writeFileSync(path.join(dir, target), text);
    files.push(target);
  }
  // The support-desk example has no project files of its own (it runs inside this package).
  for (const [target, from] of [
    ['tsconfig.json', path.join(TEMPLATES.minimal, 'tsconfig.json')],
    ['.gitignore', path.join(TEMPLATES.minimal, '_gitignore')],
  ] as const) {
    if (files.includes(target)) continue;
    fs.writeFileSync(path.join(dir, target), fs.readFileSync(from, 'utf8'));
    files.push(target);
  }
  // tsconfig.json maps `agent-studio/sdk` to these declarations (the runtime brings the code).
  files.push(...writeSdkTypes(dir));
  const pkgFile = path.join(dir, 'package.json');
  const existing = fs.existsSync(pkgFile) ? (JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as Record<string, unknown>) : null;
  fs.writeFileSync(pkgFile, `${JSON.stringify(packageJson(existing, name), null, 2)}\n`);
  files.push('package.json');
  return { dir, name, template, files: files.sort() };
}

/** The support-desk copy under another name: the manifest's name and the .env AGENT_ID. */
function renameExample(file: string, text: string, name: string): string {
  if (file === 'agent.json') {
    const manifest = JSON.parse(text) as Record<string, unknown>;
    return `${JSON.stringify({ ...manifest, name }, null, 2)}\n`;
  }
  if (file === '.env.example') return text.replace(/^AGENT_ID=.*$/m, `AGENT_ID=${name}`);
  return text;
}

export async function runInitCommand(argv: string[]): Promise<void> {
  const { flags, args: positional } = parseFlagsAndArgs(argv, {
    template: { type: 'string' },
    name: { type: 'string' },
    force: { type: 'boolean' },
    'sdk-types': { type: 'boolean' },
  });
  if (positional.length > 1) throw new UsageError(`init takes one folder, got ${positional.join(' ')}`);
  if (flags['sdk-types'] === true) {
    // After an upgrade of Agent Studio: only the SDK's declarations (docs/project-format.md).
    const dir = path.resolve(positional[0] ?? '.');
    if (!fs.existsSync(path.join(dir, 'agent.json')))
      throw new UsageError(`${dir} has no agent.json: --sdk-types rewrites the SDK's types of an agent project`);
    const written = writeSdkTypes(dir);
    process.stdout.write(`Wrote the SDK's types for this Agent Studio: ${written.length} files in ${path.dirname(written[0])}.\n`);
    return;
  }
  const template = typeof flags.template === 'string' ? flags.template : 'minimal';
  if (!(template in TEMPLATES)) throw new UsageError(`unknown template '${template}': choose minimal or support-desk`);
  try {
    const r = initProject({
      dir: positional[0] ?? '.',
      template: template as TemplateName,
      name: typeof flags.name === 'string' ? flags.name : undefined,
      force: flags.force === true,
    });
    const rel = path.relative(process.cwd(), r.dir) || '.';
    process.stdout.write(
      `Created the agent '${r.name}' (template ${r.template}) in ${rel}: ${r.files.length} files.\n\nNext:\n` +
        (rel === '.' ? '' : `  cd ${rel}\n`) +
        "  npm install                        # the project's own dependencies (not agent-studio: it brings the SDK)\n" +
        '  agent-studio serve --project .     # the studio, in your browser\n' +
        '  agent-studio runtime --project .   # the agent over A2A, as deployed\n' +
        '\nIt answers offline with a scripted model. To use a real one, copy .env.example to .env and set\n' +
        'MODEL_PROVIDER=openai, anthropic or gemini with its key and model (docs/project-format.md, "The model").\n',
    );
  } catch (err) {
    if (err instanceof InitError) {
      process.stderr.write(`agent-studio init: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
