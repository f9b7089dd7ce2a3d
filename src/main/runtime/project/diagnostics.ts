// What is wrong with a project, as the loader reports it: one diagnostic per problem, naming
// the file, the field or line, and what is wrong (the studio shows them; spec 5.2).

export interface Diagnostic {
  /** Project-relative file. */
  file: string;
  line?: number;
  column?: number;
  /** Path of the manifest field (`skills[0].description`), when the problem is a field. */
  field?: string;
  message: string;
}

export class ProjectLoadError extends Error {
  override readonly name = 'ProjectLoadError';
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map(formatDiagnostic).join('\n'));
  }
}

export function formatDiagnostic(d: Diagnostic): string {
  const where = [d.file, d.line, d.column].filter((x) => x !== undefined).join(':');
  return `${where}${d.field ? ` (${d.field})` : ''}: ${d.message}`;
}
