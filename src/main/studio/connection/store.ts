// The connection profile (docs/studio-api.md, "Connection profile"; docs/security.md): the header
// the Playground sends to its runtime instead of the studio's control token, so an author can call
// the runtime as a real caller. Kept in `connection.json` in the studio's data dir, file mode 0600,
// keyed by project folder; never in the runs database, so no bundle, run record or event holds it.
import fs from 'node:fs';
import path from 'node:path';
import { ConnectionRequestSchema, type ConnectionReply } from '../../../shared/studio-api.ts';

export interface ConnectionProfile {
  header: string;
  value: string;
}

interface ProfileFile {
  version: 1;
  projects: Record<string, ConnectionProfile>;
}

export const CONNECTION_FILE = 'connection.json';

/** `…` and the value's last 4 characters; only `…` for a value too short to show any of it. */
export function hintOf(value: string): string {
  return value.length >= 12 ? `…${value.slice(-4)}` : '…';
}

export class ConnectionStore {
  readonly file: string;
  private readonly projectDir: string;

  constructor(dataDir: string, projectDir: string) {
    this.file = path.join(dataDir, CONNECTION_FILE);
    this.projectDir = path.resolve(projectDir);
  }

  /** The project's profile, or null (the studio's own credential). A file that does not parse
   * counts as no profile: the Playground then calls as the studio, never with half a profile. */
  get(): ConnectionProfile | null {
    const p = this.read().projects[this.projectDir];
    const parsed = ConnectionRequestSchema.safeParse(p);
    return parsed.success ? parsed.data : null;
  }

  reply(): ConnectionReply {
    const p = this.get();
    return p ? { header: p.header, hint: hintOf(p.value) } : { header: null, hint: null };
  }

  set(profile: ConnectionProfile): void {
    const all = this.read();
    all.projects[this.projectDir] = { header: profile.header, value: profile.value };
    this.write(all);
  }

  clear(): void {
    const all = this.read();
    if (!(this.projectDir in all.projects)) return;
    delete all.projects[this.projectDir];
    this.write(all);
  }

  /** The file as last read, by its size and modification time: every run asks for the
   * profile, and the file rarely changes (a stat instead of a read and a parse). */
  private cached: { stamp: string; data: ProfileFile } | null = null;

  private read(): ProfileFile {
    const st = fs.statSync(this.file, { throwIfNoEntry: false });
    const stamp = st ? `${st.size}:${st.mtimeMs}:${st.ino}` : 'none';
    if (this.cached?.stamp !== stamp) this.cached = { stamp, data: st ? this.parse() : { version: 1, projects: {} } };
    return { version: 1, projects: { ...this.cached.data.projects } };
  }

  private parse(): ProfileFile {
    try {
      const data = JSON.parse(fs.readFileSync(this.file, 'utf8')) as Partial<ProfileFile>;
      const projects = data && typeof data.projects === 'object' && data.projects !== null ? data.projects : {};
      return { version: 1, projects: { ...projects } };
    } catch {
      return { version: 1, projects: {} };
    }
  }

  /** A temp file created 0600 and renamed over the old one: never readable by others, never
   * half written. The mode is set again in case a umask or an older file widened it. */
  private write(all: ProfileFile): void {
    const tmp = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    fs.chmodSync(tmp, 0o600);
    try {
      fs.renameSync(tmp, this.file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  }
}
