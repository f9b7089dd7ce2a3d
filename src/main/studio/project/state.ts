// What the studio knows about the open project, for the top bar, the source view and the
// run executor (docs/studio-api.md): its name, its files, whether edits are waiting to be
// applied, and the diagnostics of the last load. Changes are applied by the runtime child
// (project code runs only there): a hot reload, else a restart; a project that does not
// load reports its diagnostics here at once, not only when a run fails.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { ProjectDiagnostic } from '../../../shared/runtime-contract.ts';
import type { ProjectStatus } from '../../../shared/studio-api.ts';

export type { ProjectStatus };
import type { RuntimeHandle } from '../../playground/executor/runtime.ts';
import { ProjectFingerprint, type CodeSnapshot } from './fingerprint.ts';
import { isEvalsPath } from './files.ts';
import { agentName } from '../../common/agent-name.ts';

/** How old a caseCode() walk may be for a run's preparing phase to use it instead of walking
 * again (D-99). Each check allows one use, so with several cases running the check of each
 * case serves one preparing phase, whichever comes first (D-109); the walks are dropped when
 * the watcher reports a change, so a later run, an author's run after the experiment
 * included, walks the files itself. An edit made within it is left for the next case, whose
 * check stops the experiment; the run records the files it was given, so its record stays true. */
const CASE_CODE_REUSE_MS = 100;

export class ProjectState {
  private readonly events = new EventEmitter();
  private pending = new Set<string>();
  private loadDiagnostics: ProjectDiagnostic[] = [];
  private applying: Promise<void> | null = null;
  /** A run's preparing phase applying the changes it took (applyTaken). */
  private runApplying: Promise<void> | null = null;
  private checkedAt: string | null = null;
  /** The last walk of caseCode(), which the preparing phases right after it reuse: `uses` is
   * the number of checks made since the walks last differed and not yet used. */
  private recent: { snap: CodeSnapshot; at: number; uses: number } | null = null;

  private readonly fingerprint: ProjectFingerprint;
  /** The files as they were when the runtime last (re)loaded them. */
  private loaded: CodeSnapshot;

  constructor(
    private readonly projectDir: string,
    private readonly runtime: RuntimeHandle,
    private readonly hasActiveRun: () => boolean,
    private readonly logger: Logger,
    /** Where a run's files are kept (the blob store). */
    private readonly blobs?: { has(sha256: string): boolean; put(bytes: Buffer): unknown },
  ) {
    this.fingerprint = new ProjectFingerprint(projectDir);
    this.loaded = this.fingerprint.snapshot(this.blobs);
  }

  /** The project's files now, their contents kept in the blob store. */
  snapshot(): CodeSnapshot {
    return this.fingerprint.snapshot(this.blobs);
  }

  /** The code a run runs with: the files as its preparing phase found them (and had the
   * runtime apply, when they had changed), their contents in the blob store. A run's code
   * snapshot is this walk, not one more (docs/performance.md, "Experiments"). */
  runCode(): CodeSnapshot {
    return this.loaded;
  }

  /** The experiment runner's check before a case (the files now, kept in the blob store): the
   * case's run prepares within milliseconds and takes its pending changes from this walk. */
  caseCode(): CodeSnapshot {
    const snap = this.fingerprint.snapshot(this.blobs);
    const uses = this.recent?.snap.fingerprint === snap.fingerprint ? this.recent.uses + 1 : 1;
    this.recent = { snap, at: Date.now(), uses };
    return snap;
  }

  /** The fingerprint of the files on disk, and each file's sha256 (nothing stored). */
  code(): CodeSnapshot {
    return this.fingerprint.snapshot();
  }

  status(): ProjectStatus {
    const diagnostics = this.diagnostics();
    return {
      name: this.name(),
      dir: this.projectDir,
      pending_changes: [...this.pending].sort(),
      state: this.applying ? 'loading' : diagnostics.length ? 'invalid' : 'ready',
      diagnostics,
      checked_at: this.checkedAt,
    };
  }

  /** The watcher saw `files` change: remember them, and apply them now unless a run is
   * active (then the next run's preparing phase applies them). */
  changed(changedFiles: string[]): void {
    // Dataset files are not agent code: editing them never reloads the runtime.
    const files = changedFiles.filter((f) => !isEvalsPath(f));
    if (files.length === 0) return;
    this.recent = null;
    // A file whose content is what the runtime already loaded (a save with no change, or an
    // edit a run's preparing phase picked up before the watcher reported it) needs nothing.
    const now = this.fingerprint.snapshot();
    const news = files.filter((f) => !((f in now.files || f in this.loaded.files) && now.files[f] === this.loaded.files[f]));
    if (news.length === 0) return;
    for (const f of news) this.pending.add(f);
    this.events.emit('change');
    if (!this.hasActiveRun()) void this.apply();
  }

  /** The diagnostics of the last load of the files on disk. */
  diagnostics(): ProjectDiagnostic[] {
    return this.loadDiagnostics.length ? this.loadDiagnostics : (this.runtime.startDiagnostics?.() ?? []);
  }

  /** Resolves when no apply is under way: the watcher's, or a run's preparing phase's. */
  async settled(): Promise<void> {
    for (let p = this.applying ?? this.runApplying; p; p = this.applying ?? this.runApplying) await p;
  }

  /** Applies the changes a run's preparing phase took (takePending); until it is done the
   * other runs wait in settled(), so none is invoked on the code those changes replace. */
  applyTaken(): ReturnType<RuntimeHandle['applyChanges']> {
    const work = this.runtime.applyChanges();
    const done: Promise<void> = work.then(
      () => undefined,
      () => undefined,
    );
    this.runApplying = done;
    void done.then(() => {
      if (this.runApplying === done) this.runApplying = null;
    });
    return work;
  }

  /** Takes the pending changes for a run's preparing phase (it applies them itself), with
   * any file on disk that differs from what the runtime loaded although the watcher has not
   * reported it yet (an edit made just before the run: it is debounced). */
  takePending(): string[] {
    const recent = this.recent && Date.now() - this.recent.at <= CASE_CODE_REUSE_MS ? this.recent.snap : null;
    if (this.recent && recent && this.recent.uses > 1) this.recent.uses -= 1;
    else this.recent = null;
    const now = recent ?? this.fingerprint.snapshot(this.blobs);
    if (now.fingerprint !== this.loaded.fingerprint) {
      for (const f of new Set([...Object.keys(now.files), ...Object.keys(this.loaded.files)])) {
        if (now.files[f] !== this.loaded.files[f]) this.pending.add(f);
      }
    }
    this.loaded = now;
    const files = [...this.pending];
    this.pending.clear();
    return files;
  }

  /** The outcome of applying changes, wherever it happened (here or in a run's preparing phase). */
  recordOutcome(diagnostics: ProjectDiagnostic[]): void {
    this.loadDiagnostics = diagnostics;
    this.checkedAt = new Date().toISOString();
    this.events.emit('change');
  }

  /** Applies the pending changes through the runtime; resolves when done. */
  apply(): Promise<void> {
    if (this.applying) return this.applying;
    if (this.pending.size === 0) return Promise.resolve();
    this.applying = (async () => {
      try {
        while (this.pending.size > 0) {
          const files = this.takePending();
          const outcome = await this.runtime.applyChanges();
          if ('diagnostics' in outcome) {
            this.recordOutcome(outcome.diagnostics);
            this.logger.info({ files, problems: outcome.diagnostics.length }, 'project changed: it does not load');
          } else {
            this.recordOutcome([]);
            this.logger.info({ files, applied: outcome.applied }, 'project changed: applied');
          }
        }
      } catch (err) {
        this.logger.warn({ err: (err as Error).message }, 'project changes could not be applied');
      } finally {
        this.applying = null;
        this.events.emit('change');
      }
    })();
    return this.applying;
  }

  private name(): string {
    return agentName(this.projectDir);
  }
}
