// The runtime child's pid file (<data dir>/runtime.pid): written for every child, so the
// next studio can stop a runtime that a killed studio (kill -9, crash) left running.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

export class RuntimePidFile {
  readonly file: string;

  constructor(private readonly dataDir: string) {
    this.file = path.join(dataDir, 'runtime.pid');
  }

  write(pid: number | undefined): void {
    if (!pid) return;
    fs.mkdirSync(this.dataDir, { recursive: true });
    fs.writeFileSync(this.file, String(pid));
  }

  remove(): void {
    fs.rmSync(this.file, { force: true });
  }

  /** Stops the process the pid file names when it is our runtime for this data dir (checked
   * through /proc where it exists, so a reused pid is never hit). */
  killStale(logger: Logger): void {
    let pid: number;
    try {
      pid = Number(fs.readFileSync(this.file, 'utf8').trim());
    } catch {
      return;
    }
    if (!Number.isInteger(pid) || pid <= 1) return;
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(path.join(this.dataDir, 'runtime'))) {
        process.kill(pid, 'SIGKILL');
        logger.warn({ pid }, 'stopped a runtime left running by an earlier studio');
      }
    } catch {
      // not running, not ours, or no /proc: nothing to do
    }
    this.remove();
  }
}
