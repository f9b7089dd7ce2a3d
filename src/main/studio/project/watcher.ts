// Watches the open project's folder (chokidar) and reports which project-relative files
// changed, batched: an editor's save (write, rename, chmod) becomes one report. Dependencies,
// VCS and data folders are ignored.
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

const IGNORED_DIRS = new Set(['node_modules', '.git', '.agent-studio', '.data', 'out', 'dist', 'coverage', 'test-results']);

export class ProjectWatcher {
  private watcher: FSWatcher | null = null;
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly projectDir: string,
    private readonly onChange: (files: string[]) => void,
    private readonly debounceMs = 150,
  ) {}

  /** Resolves once the initial scan is done (later changes are reported). */
  start(): Promise<void> {
    const root = path.resolve(this.projectDir);
    this.watcher = watch(root, {
      ignoreInitial: true,
      ignored: (p: string) => {
        const rel = path.relative(root, p);
        return rel.split(path.sep).some((part) => IGNORED_DIRS.has(part) || (part.startsWith('.') && part !== '.env' && part !== '.env.example'));
      },
      awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 20 },
    });
    const record = (p: string) => {
      this.pending.add(path.relative(root, p).split(path.sep).join('/'));
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => this.flush(), this.debounceMs);
    };
    this.watcher.on('add', record).on('change', record).on('unlink', record);
    return new Promise((resolve) => this.watcher!.once('ready', () => resolve()));
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    await this.watcher?.close();
    this.watcher = null;
  }

  private flush(): void {
    this.timer = null;
    const files = [...this.pending].sort();
    this.pending.clear();
    if (files.length) this.onChange(files);
  }
}
