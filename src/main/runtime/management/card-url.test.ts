// setEnvVariable writes values the runtime reads back unchanged (readEnvFile, i.e. dotenv).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readEnvFile } from '../config.ts';
import { encodeEnvValue, setEnvVariable } from './card-url.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'card-url-'));
  file = path.join(dir, '.env');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const NAME = 'PUBLIC_AGENT_URL';

describe('setEnvVariable round trip through readEnvFile', () => {
  const values: [string, string][] = [
    ['backslashes', 'C:\\path\\to'],
    ['a trailing backslash', 'C:\\path\\to\\'],
    ['a trailing backslash with a space', 'C:\\my files\\'],
    ['double quotes', 'say "hi"'],
    ['a leading double quote', '"quoted"'],
    ['single quotes', "it's"],
    ['a leading single quote', "'quoted'"],
    ['backticks', 'run `cmd`'],
    ['single and double quotes', `it's "x"`],
    ['all three quote characters', `a'b"c\`d`],
    ['a hash', 'https://example.com/#frag'],
    ['a hash after a space', 'a #b'],
    ['leading and trailing spaces', '  padded  '],
    ['only spaces', '   '],
    ['an equals sign', 'a=b==c'],
    ['a dollar sign', '$HOME and ${USER}'],
    ['unicode', 'héllo wörld ✓ 日本語 🙂'],
    ['an empty string', ''],
    ['a URL with a query string', 'https://agents.example.com:8443/a2a/v1?x=1&y=two%20words&z=a+b'],
    ['a newline', 'line1\nline2'],
    ['a CR LF', 'line1\r\nline2'],
    ['a newline and single quotes', "it's\nnext"],
    ['a literal backslash-n', 'C:\\new\\readme'],
    ['a literal backslash-n and single quotes', "it's C:\\new"],
    ['a newline, a single quote and a literal backslash-n', "it's\nC:\\new"],
    ['a tab', 'a\tb'],
  ];

  it.each(values)('keeps a value with %s', (_label, value) => {
    fs.writeFileSync(file, 'A=1\n');
    expect(setEnvVariable(file, NAME, value)).toBe(true);
    expect(readEnvFile(file)).toEqual({ A: '1', [NAME]: value });
    // Rewriting the same variable (now present, perhaps over several lines) also reads back.
    expect(setEnvVariable(file, NAME, value)).toBe(true);
    expect(readEnvFile(file)).toEqual({ A: '1', [NAME]: value });
  });

  it('writes plain values unquoted and quotes the rest', () => {
    expect(encodeEnvValue('https://example.com/a?b=c')).toBe('https://example.com/a?b=c');
    expect(encodeEnvValue('C:\\path\\to')).toBe('C:\\path\\to');
    expect(encodeEnvValue('a #b')).toBe("'a #b'");
    expect(encodeEnvValue('')).toBe("''");
    expect(encodeEnvValue("it's")).toBe(`"it's"`);
    expect(encodeEnvValue("it's\nnext")).toBe(`"it's\\nnext"`);
    expect(encodeEnvValue(`it's "x"`)).toBe(`\`it's "x"\``);
  });

  it('refuses a value dotenv cannot read back, leaving the file alone', () => {
    const before = `A=1\n${NAME}=https://old.example.com\n`;
    fs.writeFileSync(file, before);
    for (const value of [`a'b"c\`d\nnext`, ` a'b"c\`d`, `a'b"c\`d #x`, `it's\r"C:\\new"`]) {
      expect(encodeEnvValue(value)).toBeNull();
      expect(setEnvVariable(file, NAME, value)).toBe(false);
      expect(fs.readFileSync(file, 'utf8')).toBe(before);
    }
    expect(fs.readdirSync(dir)).toEqual(['.env']);
  });

  it('refuses an edit that would change another variable, leaving the file alone', () => {
    // The only NAME= line is inside B's quoted value: rewriting it would change B.
    const before = `B='x\n${NAME}=inside\n'\n`;
    fs.writeFileSync(file, before);
    expect(readEnvFile(file)).toEqual({ B: `x\n${NAME}=inside\n` });
    expect(setEnvVariable(file, NAME, 'https://new.example.com')).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect(fs.readdirSync(dir)).toEqual(['.env']);
  });

  it('replaces a multi-line value whole', () => {
    fs.writeFileSync(file, `A=1\n${NAME}='first\nsecond\nthird'\nB=2\n`);
    expect(setEnvVariable(file, NAME, 'https://new.example.com')).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(`A=1\n${NAME}=https://new.example.com\nB=2\n`);
  });
});

describe('setEnvVariable keeps the rest of the file', () => {
  it('keeps other lines and comments, rewriting the variable in place', () => {
    const text = [
      '# Agent settings',
      'AGENT_ID=agent-1 # inline comment',
      '',
      `${NAME}=https://old.example.com`,
      "SECRET='s3cr#t'",
      '# trailing comment',
      '',
    ].join('\n');
    fs.writeFileSync(file, text);
    expect(setEnvVariable(file, NAME, 'https://new.example.com/a?b=1&c=C:\\x')).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(text.replace('https://old.example.com', 'https://new.example.com/a?b=1&c=C:\\x'));
    expect(readEnvFile(file)).toEqual({ AGENT_ID: 'agent-1', [NAME]: 'https://new.example.com/a?b=1&c=C:\\x', SECRET: 's3cr#t' });
  });

  it('appends a missing variable at the end', () => {
    fs.writeFileSync(file, '# only a comment\nA=1\n');
    expect(setEnvVariable(file, NAME, 'https://a.example.com')).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(`# only a comment\nA=1\n${NAME}=https://a.example.com\n`);
  });

  it('keeps CRLF line endings', () => {
    fs.writeFileSync(file, `# c\r\nA=1\r\n${NAME}=old\r\nB=2\r\n`);
    expect(setEnvVariable(file, NAME, 'line1\nC:\\x')).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(`# c\r\nA=1\r\n${NAME}='line1\r\nC:\\x'\r\nB=2\r\n`);
    expect(readEnvFile(file)).toEqual({ A: '1', [NAME]: 'line1\nC:\\x', B: '2' });
  });

  it('keeps an export prefix', () => {
    fs.writeFileSync(file, `export ${NAME}=old\nexport A=1\n`);
    expect(setEnvVariable(file, NAME, 'https://new.example.com')).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(`export ${NAME}=https://new.example.com\nexport A=1\n`);
  });

  it('rewrites the last of several assignments, the one dotenv keeps', () => {
    fs.writeFileSync(file, `${NAME}=first\n${NAME}=second\n`);
    expect(setEnvVariable(file, NAME, 'third')).toBe(true);
    expect(readEnvFile(file)[NAME]).toBe('third');
  });

  it('keeps the file mode', () => {
    fs.writeFileSync(file, 'A=1\n', { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    expect(setEnvVariable(file, NAME, 'x')).toBe(true);
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('is false when there is no file to rewrite', () => {
    expect(setEnvVariable(file, NAME, 'https://a.example.com')).toBe(false);
    expect(fs.existsSync(file)).toBe(false);
  });
});
