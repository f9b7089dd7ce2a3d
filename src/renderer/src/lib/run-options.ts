// The project's run options (manifest `runOptions`, docs/project-format.md): request-metadata
// fields the composer shows, each starting from its default. What they send is typed as the
// option declares: integer and number options are numbers within their bounds.
import type { RunOption } from '../../../shared/composer-schema.ts';

/** The text a field shows: what the author typed, else the option's default. */
export function runOptionText(option: RunOption, typed: Record<string, string>): string {
  return typed[option.name] ?? (option.default === undefined ? '' : String(option.default));
}

export type RunOptionResult = { metadata: Record<string, unknown>; problems: string[] };

/** The request metadata the fields send; an empty field sends nothing. */
export function runOptionMetadata(options: readonly RunOption[], typed: Record<string, string>): RunOptionResult {
  const metadata: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const o of options) {
    const raw = runOptionText(o, typed).trim();
    if (raw === '') continue;
    if (o.type === 'string') metadata[o.name] = raw;
    else if (o.type === 'boolean') metadata[o.name] = raw === 'true';
    else {
      const n = Number(raw);
      if (!Number.isFinite(n) || (o.type === 'integer' && !Number.isInteger(n)))
        problems.push(`${o.name}: must be ${o.type === 'integer' ? 'a whole number' : 'a number'}`);
      else if (o.min !== undefined && n < o.min) problems.push(`${o.name}: must be at least ${o.min}`);
      else if (o.max !== undefined && n > o.max) problems.push(`${o.name}: must be at most ${o.max}`);
      else metadata[o.name] = n;
    }
  }
  return { metadata, problems };
}
