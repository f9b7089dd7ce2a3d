// What is wrong with a project, as the loader reports it: one diagnostic per problem, naming
// the file, the field or line, and what is wrong (the studio shows them; spec 5.2).

import type { ProjectDiagnostic } from '../../../shared/runtime-contract.ts';

/** A problem with where it is: the shared contract's shape (src/shared/runtime-contract.ts). */
export type Diagnostic = ProjectDiagnostic;

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
