// `agent-studio eval` as CI runs it, in its own process on a copy of the example
// (docs/evaluation.md, "In CI"): its outputs (results.json, junit.xml, summary.md) and exit
// codes: 0 all pass, 1 a failing assertion, 1 a regression against --baseline FILE or last,
// 2 a usage error.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResultsFileSchema } from '../../src/shared/experiments.ts';
import { BIN, copyExample, tempDir } from './helpers/playground-studio.ts';

function evalCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'eval', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SCRIPTED_DELAY_MS: '0', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('agent-studio eval', () => {
  let dir: string;
  let data: string;
  let out: string;
  beforeAll(() => {
    dir = copyExample('eval-cli');
    data = tempDir('eval-data');
    out = tempDir('eval-out');
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs the example dataset headless: progress, results.json, junit.xml, summary.md, exit 0', async () => {
    const r = await evalCli(['--project', dir, '--data-dir', data, '--out', path.join(out, 'first')]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\[support\] \d+\/\d+ done: \d+ passed/);
    expect(r.stdout).toContain('PASSED');
    const results = ResultsFileSchema.parse(JSON.parse(fs.readFileSync(path.join(out, 'first', 'results.json'), 'utf8')));
    expect(results.experiments).toHaveLength(1);
    const { experiment, cases } = results.experiments[0]!;
    expect(experiment).toMatchObject({ dataset: 'support', status: 'completed', pass_rate: 1 });
    expect(cases.length).toBe(experiment.counts.total);
    const junit = fs.readFileSync(path.join(out, 'first', 'junit.xml'), 'utf8');
    expect(junit).toContain(`<testsuite name="support" tests="${cases.length}" failures="0" errors="0"`);
    expect(junit.match(/<testcase /g)).toHaveLength(cases.length);
    expect(fs.readFileSync(path.join(out, 'first', 'summary.md'), 'utf8')).toContain('Every case passed.');
  });

  it('exits 1 with a failing assertion, its message in junit.xml and on stdout', async () => {
    fs.writeFileSync(
      path.join(dir, 'evals', 'strict.jsonl'),
      `${JSON.stringify({ id: 'wrong-carrier', input: { text: 'Where is my order ORD-23456?' }, expected: { assertions: [{ type: 'text_contains', value: 'DHL' }] } })}\n`,
    );
    const r = await evalCli(['--project', dir, '--dataset', 'strict', '--repeat', '2', '--data-dir', data, '--out', path.join(out, 'strict')]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('FAILED wrong-carrier #1');
    expect(r.stdout).toContain('expected the answer to contain "DHL"');
    const junit = fs.readFileSync(path.join(out, 'strict', 'junit.xml'), 'utf8');
    expect(junit).toContain('<testsuite name="strict" tests="2" failures="2"');
    expect(junit).toMatch(/<failure message="text_contains &quot;DHL&quot;: expected the answer to contain &quot;DHL&quot;/);
    fs.rmSync(path.join(dir, 'evals', 'strict.jsonl'));
  });

  it('exits 1 when a case regressed against --baseline last and --baseline FILE, naming the changed file', async () => {
    const skills = path.join(dir, 'src/skills.ts');
    fs.writeFileSync(
      skills,
      fs.readFileSync(skills, 'utf8').replace("return { skill: 'refunds', verdict: 'approved'", "return { skill: 'refunds', verdict: 'unsuitable'"),
    );
    const last = await evalCli(['--project', dir, '--dataset', 'support', '--baseline', 'last', '--data-dir', data, '--out', path.join(out, 'last')]);
    expect(last.code, last.stdout + last.stderr).toBe(1);
    expect(last.stdout).toContain('REGRESSED refund-approved');
    expect(last.stdout).toContain('changed code files: src/skills.ts');
    expect(last.stdout).toContain('some cases regressed against the baseline');

    const file = await evalCli([
      '--project',
      dir,
      '--dataset',
      'support',
      '--baseline',
      path.join(out, 'first', 'results.json'),
      '--data-dir',
      data,
      '--out',
      path.join(out, 'file'),
    ]);
    expect(file.code, file.stdout + file.stderr).toBe(1);
    expect(file.stdout).toContain('REGRESSED refund-approved');
    const junit = fs.readFileSync(path.join(out, 'file', 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite name="support vs baseline" tests="\d+" failures="[1-9]/);
    expect(fs.readFileSync(path.join(out, 'file', 'summary.md'), 'utf8')).toMatch(/\| refund-approved \| regressed \| 100% -> 0% \|/);
  });

  it('exits 2 on a usage error', async () => {
    for (const args of [
      [],
      ['--project', dir, '--repeat', '0'],
      ['--project', dir, '--concurrency', 'x'],
      ['--project', dir, '--baseline', '/nonexistent/results.json'],
      ['--project', dir, '--bogus'],
    ]) {
      const r = await evalCli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('agent-studio:');
    }
    const unknown = await evalCli(['--project', dir, '--dataset', 'nope', '--data-dir', data]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no dataset nope');
  });
});
