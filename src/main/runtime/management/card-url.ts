// PATCH /api/v1/card/url (spec 2.2, 4.2 rule 3): applied at once to the served agent card and
// stored in the shared runtime settings (runtime-settings.ts), so every replica serves it and
// a restart keeps it: `persisted` is true. The project's .env is kept in step when it can be
// rewritten (`env_file`, docs/management-api.md). A PUBLIC_AGENT_URL in the process
// environment pins the URL: the change is refused (SETTING_PINNED).
import fs from 'node:fs';
import path from 'node:path';
import { readEnvFile, type RuntimeSettings } from '../config.ts';
import type { SettingSource, SharedSettings } from './runtime-settings.ts';

export interface CardUrlServiceDeps {
  /** The served agent card; its url changes at once. */
  card: { url: string };
  settings: Pick<RuntimeSettings, 'envFile' | 'publicAgentUrl'>;
  shared: Pick<SharedSettings, 'putCardUrl' | 'cardUrlSource'>;
}

export class CardUrlService {
  constructor(private readonly deps: CardUrlServiceDeps) {}

  get url(): string {
    return this.deps.card.url;
  }

  /** GET /api/v1/card/url: the URL and where it comes from. */
  describe(): { url: string; source: SettingSource } {
    return { url: this.deps.card.url, source: this.deps.shared.cardUrlSource() };
  }

  /** Stores `url` (validated by CardUrlSchema), serves it from now on and writes it to the .env. */
  async update(url: string): Promise<{ url: string; previous_url: string; persisted: boolean; env_file: boolean; source: SettingSource }> {
    const previous = this.deps.card.url;
    await this.deps.shared.putCardUrl(url);
    this.deps.settings.publicAgentUrl = url;
    const envFile = setEnvVariable(this.deps.settings.envFile, 'PUBLIC_AGENT_URL', url);
    return { url, previous_url: previous, persisted: true, env_file: envFile, source: this.deps.shared.cardUrlSource() };
  }
}

/** Rewrites (or appends) one variable of an existing .env file, keeping every other line
 * and comment, atomically (temp file + rename). False when there is no writable file, or
 * when dotenv (readEnvFile) could not read the value back exactly. */
export function setEnvVariable(file: string, name: string, value: string): boolean {
  // A name dotenv would not read as a key could never be read back.
  if (!/^[\w.-]+$/.test(name)) return false;
  const encoded = encodeEnvValue(value);
  if (encoded === null) return false;
  let text: string;
  let before: Record<string, string>;
  try {
    fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
    text = fs.readFileSync(file, 'utf8');
    before = readEnvFile(file);
  } catch {
    return false;
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const pattern = new RegExp(`^\\s*(export\\s+)?${name.replace(/[.-]/g, '\\$&')}\\s*=`);
  // dotenv keeps the last assignment of a name, so that is the one to rewrite.
  const at = lines.findLastIndex((l) => pattern.test(l));
  if (at >= 0) {
    const prefix = /^\s*export\s+/.test(lines[at]) ? 'export ' : '';
    // A quoted multi-line value carries on below its line; replace all of it, or its tail
    // would be left behind as stray lines.
    const end = assignmentEnd(lines, at);
    lines.splice(at, end - at + 1, ...`${prefix}${name}=${encoded}`.split('\n'));
  } else {
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    lines.push(...`${name}=${encoded}`.split('\n'), '');
  }
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    const mode = fs.statSync(file).mode;
    fs.writeFileSync(tmp, lines.join(eol), { mode });
    // Read the new file back the way the runtime will before replacing the old one: the
    // variable must come back exactly and every other variable must be unchanged.
    if (!readsBack(before, readEnvFile(tmp), name, value)) throw new Error('not read back exactly');
    fs.renameSync(tmp, file);
    return true;
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
}

/**
 * The right-hand side that dotenv parses back to exactly `value`, or null when there is
 * none. dotenv (lib/main.js `parse`) trims unquoted values and cuts them at `#`; keeps
 * single-quoted and backtick-quoted content literally; in double quotes it turns `\n` and
 * `\r` into line breaks and unescapes nothing else (so `\\` stays two backslashes and
 * `\"` keeps its backslash). It turns every CR in the file into LF. A backslash just
 * before a closing quote reads as an escaped quote, so the value may run on into later
 * lines: no quoted form may end with a backslash.
 */
export function encodeEnvValue(value: string): string | null {
  const endsWithBackslash = value.endsWith('\\');
  // Plain: nothing dotenv trims, cuts or unquotes, and no spaces or quotes at all so the
  // line stays as readable to people and shells as it is to dotenv. (An empty value is
  // quoted: after a bare `NAME=` dotenv would take a quoted value from the next line.)
  if (/^[^\s#'"`]+$/.test(value)) return value;
  if (!value.includes("'") && !value.includes('\r') && !endsWithBackslash) return `'${value}'`;
  // Double quotes spell CR and LF as \r and \n; a literal backslash-n or backslash-r in
  // the value would be read back as a line break, so such a value cannot use them.
  if (!value.includes('"') && !/\\[nr]/.test(value) && !endsWithBackslash) {
    return `"${value.replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
  }
  if (!value.includes('`') && !value.includes('\r') && !endsWithBackslash) return `\`${value}\``;
  // Last resort, still exact: one line without `#` or outer spaces, not opening with a
  // quote, reads back as it is even with spaces and quotes inside.
  if (/^[^\s#'"`][^#\r\n]*$/.test(value) && value.trim() === value) return value;
  return null;
}

/** The last line of the assignment starting on `lines[at]`. dotenv lets a quoted value run
 * on over line breaks up to its closing quote: the first quote not escaped by a backslash,
 * which must be followed by nothing but spaces or a comment; otherwise it reads the line
 * alone as an unquoted value. */
function assignmentEnd(lines: string[], at: number): number {
  const first = lines[at].slice(lines[at].indexOf('=') + 1).trimStart();
  const quote = first[0];
  if (quote !== "'" && quote !== '"' && quote !== '`') return at;
  for (let j = at; j < lines.length; j++) {
    const line = j === at ? first : lines[j];
    for (let i = line.indexOf(quote, j === at ? 1 : 0); i >= 0; i = line.indexOf(quote, i + 1)) {
      if (line[i - 1] === '\\') continue;
      return /^\s*(#.*)?$/.test(line.slice(i + 1)) ? j : at;
    }
  }
  return at;
}

function readsBack(before: Record<string, string>, after: Record<string, string>, name: string, value: string): boolean {
  if (after[name] !== value) return false;
  const others = (env: Record<string, string>): string[] =>
    Object.keys(env)
      .filter((k) => k !== name)
      .sort();
  const keys = others(before);
  const keysAfter = others(after);
  return keys.length === keysAfter.length && keys.every((k, i) => k === keysAfter[i] && before[k] === after[k]);
}
