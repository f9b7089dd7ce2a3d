// The connection profile's file (docs/studio-api.md, "Connection profile"): 0600, one profile
// per project folder, a hint that never shows the value, and the header/value rules.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionRequestSchema } from '../../../shared/studio-api.ts';
import { ConnectionStore, hintOf } from './store.ts';

const dirs: string[] = [];
const temp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'connection-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('ConnectionStore', () => {
  it('keeps one profile per project folder in a 0600 file, and clears only its own', () => {
    const data = temp();
    const a = new ConnectionStore(data, '/projects/a');
    const b = new ConnectionStore(data, '/projects/b');
    a.set({ header: 'X-API-Key', value: 'alice-key-0123456789' });
    b.set({ header: 'Authorization', value: 'Bearer bob-key-0123456789' });
    expect(fs.statSync(a.file).mode & 0o777).toBe(0o600);
    expect(a.get()).toEqual({ header: 'X-API-Key', value: 'alice-key-0123456789' });
    expect(a.reply()).toEqual({ header: 'X-API-Key', hint: '…6789' });
    a.clear();
    expect(a.reply()).toEqual({ header: null, hint: null });
    expect(b.get()?.header).toBe('Authorization');
    expect(fs.readdirSync(data)).toEqual(['connection.json']);
  });

  it('treats a damaged file or a profile that breaks the rules as no profile', () => {
    const data = temp();
    const s = new ConnectionStore(data, '/p');
    fs.writeFileSync(s.file, '{not json');
    expect(s.get()).toBeNull();
    fs.writeFileSync(s.file, JSON.stringify({ version: 1, projects: { '/p': { header: 'Host', value: 'x' } } }));
    expect(s.get()).toBeNull();
    s.set({ header: 'X-API-Key', value: 'k'.repeat(20) });
    expect(s.get()?.value).toBe('k'.repeat(20));
  });
});

describe('hint and rules', () => {
  it('shows only the last 4 characters of a long value, nothing of a short one', () => {
    expect(hintOf('abcdefghijklmnop')).toBe('…mnop');
    expect(hintOf('short')).toBe('…');
  });

  it('accepts tokens and refuses managed headers and bad values', () => {
    const ok = (header: string, value: string) => ConnectionRequestSchema.safeParse({ header, value }).success;
    expect(ok('X-API-Key', 'k')).toBe(true);
    expect(ok('x-gateway-token', ' padded ')).toBe(true);
    for (const h of ['Host', 'connection', 'Transfer-Encoding', 'cookie', 'Proxy-Authorization', 'Sec-Fetch-Mode', 'X API', 'X:Y', ''])
      expect(ok(h, 'k')).toBe(false);
    for (const v of ['', '   ', 'a\r\nb', 'a\nb', 'naïve', 'k'.repeat(8 * 1024 + 1)]) expect(ok('X-API-Key', v)).toBe(false);
    expect(ok('X-API-Key', 'k'.repeat(8 * 1024))).toBe(true);
    expect(ConnectionRequestSchema.parse({ header: 'X-API-Key', value: ' key ' }).value).toBe('key');
  });
});
