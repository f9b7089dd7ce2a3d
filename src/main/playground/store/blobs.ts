// Content-addressed file store (spec 2.6): inline file bytes go to blobs/<sha256>; the
// database keeps only hash, size, name, MIME type and source. Identical bytes are stored
// once, whichever runs and sessions use them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const HASH = /^[0-9a-f]{64}$/;

export class BlobStore {
  /** Hashes this process has seen on disk (written, or found): a code snapshot asks for every
   * project file on every run, and a file check each is most of its cost. Deletions go
   * through delete(), which forgets them. */
  private readonly present = new Set<string>();

  constructor(readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  static hash(bytes: Buffer): string {
    return crypto.createHash('sha256').update(bytes).digest('hex');
  }

  pathOf(sha256: string): string {
    if (!HASH.test(sha256)) throw new Error(`not a sha256 hash: ${sha256}`);
    return path.join(this.dir, sha256);
  }

  /** Writes the bytes unless a blob with the same hash exists. Atomic: a crash never
   * leaves a partial file under the final name (write to a temp name, then rename). */
  put(bytes: Buffer): { sha256: string; size: number } {
    const sha256 = BlobStore.hash(bytes);
    const file = this.pathOf(sha256);
    if (!fs.existsSync(file)) {
      const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
      fs.writeFileSync(tmp, bytes);
      fs.renameSync(tmp, file);
    }
    this.present.add(sha256);
    return { sha256, size: bytes.length };
  }

  /** Moves in a file whose bytes the caller checked hash to `sha256` (a bundle import's
   * staged file, on the same file system: a rename, so never a partial file). */
  adopt(file: string, sha256: string): void {
    fs.renameSync(file, this.pathOf(sha256));
  }

  get(sha256: string): Buffer {
    return fs.readFileSync(this.pathOf(sha256));
  }

  has(sha256: string): boolean {
    if (this.present.has(sha256)) return true;
    const found = fs.existsSync(this.pathOf(sha256));
    if (found) this.present.add(sha256);
    return found;
  }

  delete(sha256: string): void {
    this.present.delete(sha256);
    fs.rmSync(this.pathOf(sha256), { force: true });
  }
}
