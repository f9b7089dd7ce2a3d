// changed_files (spec 4.3 run creation body): project-relative paths only. An absolute
// path or one with a `..` segment is refused at create time (400), so the preparing phase
// never reads or reports anything outside the project.
import path from 'node:path';

/** Answers why a changed-file path is refused, or null when it is project-relative. */
export function changedFileProblem(p: string): string | null {
  if (p.length === 0) return 'must not be empty';
  if (p.includes('\0')) return 'must not contain NUL characters';
  // Absolute on any platform: /x, \x, C:\x, C:/x, \\server\share.
  if (path.posix.isAbsolute(p) || path.win32.isAbsolute(p) || /^[A-Za-z]:/.test(p)) {
    return 'must be relative to the project folder, not absolute';
  }
  if (p.split(/[\\/]+/).includes('..')) return "must not contain a '..' segment";
  return null;
}

/** The normalised form kept on the run: forward slashes, no `.` segments. */
export function normaliseChangedFile(p: string): string {
  return p
    .split(/[\\/]+/)
    .filter((seg) => seg !== '' && seg !== '.')
    .join('/');
}
