// PATCH /api/v1/card/url (spec 2.2, 4.2 rule 3): applied at once to the served agent card;
// `persisted` says whether PUBLIC_AGENT_URL in the project's .env was rewritten.
import fs from 'node:fs';
import path from 'node:path';
import type { RuntimeContext } from '../server.ts';
import { ManagementError } from './envelope.ts';

export class CardUrlService {
  constructor(private readonly ctx: RuntimeContext) {}

  update(body: Record<string, unknown>): { url: string; previous_url: string; persisted: boolean } {
    const { url } = body;
    if (url === undefined) throw new ManagementError('INVALID_PARAM', "'url' is required.", { field: 'url' });
    if (typeof url !== 'string') throw new ManagementError('INVALID_PARAM', "'url' must be a string.", { field: 'url' });
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ManagementError('INVALID_PARAM', "'url' must be an absolute http(s) URL.", { field: 'url' });
    }
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) {
      throw new ManagementError('INVALID_PARAM', "'url' must be an absolute http(s) URL.", { field: 'url' });
    }
    const previous = this.ctx.card.url;
    this.ctx.card.url = url;
    this.ctx.settings.publicAgentUrl = url;
    return { url, previous_url: previous, persisted: setEnvVariable(this.ctx.settings.envFile, 'PUBLIC_AGENT_URL', url) };
  }
}

/** Rewrites (or appends) one variable of an existing .env file, keeping every other line
 * and comment, atomically (temp file + rename). False when there is no writable file. */
export function setEnvVariable(file: string, name: string, value: string): boolean {
  let text: string;
  try {
    fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const pattern = new RegExp(`^\\s*(export\\s+)?${name}\\s*=`);
  const quoted = /[\s#"'\\]/.test(value) ? JSON.stringify(value) : value;
  const at = lines.findIndex((l) => pattern.test(l));
  if (at >= 0) {
    const prefix = /^\s*export\s+/.test(lines[at]) ? 'export ' : '';
    lines[at] = `${prefix}${name}=${quoted}`;
  } else {
    if (lines.length && lines[lines.length - 1] === '') lines.pop();
    lines.push(`${name}=${quoted}`, '');
  }
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    const mode = fs.statSync(file).mode;
    fs.writeFileSync(tmp, lines.join(eol), { mode });
    fs.renameSync(tmp, file);
    return true;
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
}
