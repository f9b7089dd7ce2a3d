// `agent-studio runtime keys new NAME`: a fresh API key for a caller (A2A_API_KEYS) or an
// operator (MANAGEMENT_API_KEYS). The key is printed once and stored nowhere; the runtime keeps
// only the `NAME:sha256hex` line (docs/security.md, "Deployed runtime: authentication").
import { UsageError } from '../../cli-args.ts';
import { KEY_NAME, newKey } from './api-keys.ts';

export const KEYS_USAGE = 'runtime keys new NAME';

export function runKeysCommand(argv: string[], out: (text: string) => void = (t) => process.stdout.write(t)): void {
  const [verb, name, ...rest] = argv;
  if (verb !== 'new' || name === undefined || rest.length) throw new UsageError(`usage: agent-studio ${KEYS_USAGE}`);
  if (!KEY_NAME.test(name)) throw new UsageError(`the key name '${name}' must be 1-128 letters, digits or . _ @ + - (starting with a letter or digit)`);
  const { key, entry } = newKey(name);
  out(
    [
      `key (give it to ${name}; it is shown only this once):`,
      `  ${key}`,
      'entry (add it to A2A_API_KEYS for a caller or MANAGEMENT_API_KEYS for an operator, comma-separated):',
      `  ${entry}`,
      '',
    ].join('\n'),
  );
}
