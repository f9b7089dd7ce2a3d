// What callers of the supervisor wait for: the next child ready, the next start settled
// (ready or failed), a generation's exit. One typed event emitter, each wait with a timeout.
import { EventEmitter } from 'node:events';
import type { ProjectDiagnostic } from '../../../shared/runtime-contract.ts';

interface ChildEvents {
  ready: [url: string];
  'start-failed': [diagnostics: ProjectDiagnostic[] | null];
  exit: [generation: number];
}

export class ChildWaiters {
  private readonly events = new EventEmitter<ChildEvents>();
  private readonly exited = new Set<number>();

  constructor() {
    this.events.setMaxListeners(0);
  }

  ready(url: string): void {
    this.events.emit('ready', url);
  }

  startFailed(diagnostics: ProjectDiagnostic[] | null): void {
    this.events.emit('start-failed', diagnostics);
  }

  /** The child of `generation` is gone; `announce` tells onExit listeners (the supervised
   * child's exit does; that of a child already replaced does not). */
  exit(generation: number, announce: boolean): void {
    this.exited.add(generation);
    if (announce) this.events.emit('exit', generation);
  }

  onExit(listener: (generation: number) => void): () => void {
    this.events.on('exit', listener);
    return () => this.events.off('exit', listener);
  }

  /** The URL of the next ready child; null after `timeoutMs`, or when a start fails and
   * `giveUp()` says waiting longer is pointless. */
  nextReady(timeoutMs: number, giveUp: () => boolean): Promise<string | null> {
    return new Promise((resolve) => {
      const done = (url: string | null) => {
        clearTimeout(timer);
        this.events.off('ready', onReady);
        this.events.off('start-failed', onFailed);
        resolve(url);
      };
      const onReady = (url: string) => done(url);
      const onFailed = () => {
        if (giveUp()) done(null);
      };
      const timer = setTimeout(() => done(null), timeoutMs);
      this.events.on('ready', onReady);
      this.events.on('start-failed', onFailed);
    });
  }

  /** Resolves when the next child is ready (null) or fails to start (its diagnostics, if it
   * printed any); null after `timeoutMs`. */
  nextStart(timeoutMs: number): Promise<ProjectDiagnostic[] | null> {
    return new Promise((resolve) => {
      const done = (diagnostics: ProjectDiagnostic[] | null) => {
        clearTimeout(timer);
        this.events.off('ready', onReady);
        this.events.off('start-failed', done);
        resolve(diagnostics?.length ? diagnostics : null);
      };
      const onReady = () => done(null);
      const timer = setTimeout(() => done(null), timeoutMs);
      this.events.on('ready', onReady);
      this.events.on('start-failed', done);
    });
  }

  /** True once the child of `generation` has exited (waits up to `timeoutMs`). */
  async exitOf(generation: number, timeoutMs: number): Promise<boolean> {
    if (this.exited.has(generation)) return true;
    return new Promise((resolve) => {
      const onExit = (g: number) => {
        if (g !== generation) return;
        clearTimeout(timer);
        this.events.off('exit', onExit);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.events.off('exit', onExit);
        resolve(this.exited.has(generation));
      }, timeoutMs);
      this.events.on('exit', onExit);
    });
  }
}
