// One studio per data dir. Two studios on the same store would each treat the other's
// active runs as left over by a crash and end them `interrupted` at start; the lock file
// (`studio.lock`, holding the pid) refuses the second one with a clear message. A lock
// left by a killed studio is taken over: its pid is no longer a live studio process.
import fs from 'node:fs';
import path from 'node:path';

const heldHere = new Set<string>();

export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
  readonly code = 'DATA_DIR_IN_USE';
}

function liveStudio(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // Where /proc exists, a reused pid of an unrelated program does not count.
    return /node|electron|agent-studio/i.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return true;
  }
}

/** Takes the data dir's lock; answers the release function. */
export function lockDataDir(dataDir: string): () => void {
  const file = path.join(dataDir, 'studio.lock');
  if (heldHere.has(dataDir)) throw new DataDirInUseError(`another studio in this process already uses the data dir ${dataDir}`);
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && liveStudio(pid)) {
      throw new DataDirInUseError(`another studio (pid ${pid}) already uses the data dir ${dataDir}: stop it, or pass another --data-dir`);
    }
  } catch (err) {
    if (err instanceof DataDirInUseError) throw err;
    // no lock file: free
  }
  fs.writeFileSync(file, String(process.pid));
  heldHere.add(dataDir);
  return () => {
    heldHere.delete(dataDir);
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}
