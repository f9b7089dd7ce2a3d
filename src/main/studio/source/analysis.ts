// The project's TypeScript as one long-lived ts-morph Project, brought up to date on each
// request from the files' sizes and modification times (only changed files are re-read), and
// the source targets of a node from it. Type information stays inside the project: no lib,
// no node_modules (noLib, noResolve), which keeps the first analysis around a second.
import fs from 'node:fs';
import path from 'node:path';
import { ModuleKind, ModuleResolutionKind, Project, ScriptTarget, type SourceFile } from 'ts-morph';
import { locateJson } from '../../common/json-locate.ts';
import { projectFiles } from '../project/files.ts';
import { sha256, TargetFinder, type EvaluatorDeclaration, type SourceTarget } from './targets.ts';

const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|jsx)$/;
const MANIFEST = 'agent.json';

/** The project's TypeScript and JavaScript files (relative paths), as the source view lists them. */
export function listSourceFiles(projectDir: string): string[] {
  return projectFiles(projectDir).filter((p) => SOURCE.test(p));
}

export class ProjectAnalysis {
  private project: Project | null = null;
  private readonly stamps = new Map<string, string>();

  constructor(private readonly projectDir: string) {}

  /** The targets of `nodeId`, or null when the graph adds no such node. */
  targets(nodeId: string): { targets: SourceTarget[]; nodes: string[] } | null {
    const project = this.sync();
    const finder = new TargetFinder(project, this.projectDir);
    const { evaluators, text } = this.evaluators();
    const targets = finder.find(nodeId, evaluators, text, MANIFEST);
    if (targets.length === 0) return null;
    return { targets, nodes: finder.nodeIds() };
  }

  /** Node ids the project's graph adds (for a 404's hint). */
  nodeIds(): string[] {
    return new TargetFinder(this.sync(), this.projectDir).nodeIds();
  }

  private sync(): Project {
    const project = (this.project ??= new Project({
      useInMemoryFileSystem: false,
      skipAddingFilesFromTsConfig: true,
      skipFileDependencyResolution: true,
      compilerOptions: {
        allowJs: true,
        noEmit: true,
        noLib: true,
        noResolve: true,
        allowImportingTsExtensions: true,
        target: ScriptTarget.ES2022,
        module: ModuleKind.ESNext,
        moduleResolution: ModuleResolutionKind.Bundler,
      },
    }));
    const seen = new Set<string>();
    for (const rel of listSourceFiles(this.projectDir)) {
      const abs = path.join(this.projectDir, rel);
      seen.add(abs);
      let stamp: string;
      try {
        const st = fs.statSync(abs);
        stamp = `${st.size}:${st.mtimeMs}`;
      } catch {
        continue;
      }
      if (this.stamps.get(abs) === stamp) continue;
      this.stamps.set(abs, stamp);
      const existing = project.getSourceFile(abs);
      if (existing) existing.refreshFromFileSystemSync();
      else project.addSourceFileAtPath(abs);
    }
    for (const file of project.getSourceFiles() as SourceFile[]) {
      if (!seen.has(file.getFilePath())) {
        this.stamps.delete(file.getFilePath());
        project.removeSourceFile(file);
      }
    }
    return project;
  }

  /** Evaluator declarations of agent.json, with where each one is. */
  private evaluators(): { evaluators: EvaluatorDeclaration[]; text: string } {
    let text = '';
    try {
      text = fs.readFileSync(path.join(this.projectDir, MANIFEST), 'utf8');
      const manifest = JSON.parse(text) as { evaluators?: { name?: unknown; node?: unknown; module?: unknown; export?: unknown }[] };
      const list = Array.isArray(manifest.evaluators) ? manifest.evaluators : [];
      const evaluators = list.flatMap((e, i) => {
        if (typeof e?.name !== 'string' || typeof e.module !== 'string') return [];
        const at = locateJson(text, ['evaluators', i]);
        const snippet = at ? text.slice(at.offset, at.offset + Math.min(at.length, 240)) : '';
        return [
          {
            name: e.name,
            node: typeof e.node === 'string' ? e.node : undefined,
            file: e.module,
            export: typeof e.export === 'string' ? e.export : 'default',
            manifestLine: at?.line ?? 1,
            manifestColumn: at?.column ?? 1,
            manifestEndLine: at?.endLine ?? 1,
            manifestSnippet: snippet.split('\n').slice(0, 3).join('\n'),
          },
        ];
      });
      return { evaluators, text };
    } catch {
      return { evaluators: [], text: text || '' };
    }
  }
}

export { sha256 };
