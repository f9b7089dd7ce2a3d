// Flag parsing for the `agent-studio` sub-commands, on node:util parseArgs, with errors
// that say what to fix.
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T): Record<keyof T, string | boolean | undefined> {
  try {
    const { values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
    return values as unknown as Record<keyof T, string | boolean | undefined>;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Flags plus positional arguments (`init [DIR]`). */
export function parseFlagsAndArgs<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
): { flags: Record<keyof T, string | boolean | undefined>; args: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
    return { flags: values as unknown as Record<keyof T, string | boolean | undefined>, args: positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** A TCP port flag: an integer 0..65535 (0 = any free port). */
export function parsePort(value: string | boolean | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || n > 65535) {
    throw new UsageError(`--port must be an integer between 0 and 65535, got '${String(value)}'`);
  }
  return n;
}
