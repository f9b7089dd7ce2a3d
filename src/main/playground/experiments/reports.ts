// What `agent-studio eval` writes (docs/evaluation.md, "In CI"): results.json (every experiment
// with all its cases; the `--baseline FILE` of a later run), junit.xml (a testsuite per dataset,
// a testcase per case x repeat, the assertion messages as failures; a suite of regressions when
// compared with a baseline) and summary.md.
import type { ExperimentCase, ExperimentCompare, ExperimentDetail, ResultsFile } from '../../../shared/experiments.ts';

export interface DatasetOutcome {
  experiment: ExperimentDetail;
  cases: ExperimentCase[];
  /** The compare with the baseline's experiment of the same dataset, when there is one. */
  compare: ExperimentCompare | null;
}

/** Text for XML: the five entities escaped, and control characters XML 1.0 cannot hold dropped. */
const xml = (s: string) =>
  [...s]
    .filter((c) => {
      const n = c.charCodeAt(0);
      return n >= 0x20 || n === 0x09 || n === 0x0a || n === 0x0d;
    })
    .join('')
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
const secs = (ms: number | null) => ((ms ?? 0) / 1000).toFixed(3);

export function resultsFile(project: string, outcomes: readonly DatasetOutcome[]): ResultsFile {
  return {
    format: 'agent-studio.eval-results/1',
    project,
    created_at: new Date().toISOString(),
    experiments: outcomes.map((o) => ({ experiment: o.experiment, cases: o.cases })),
  };
}

/** Why a case did not pass, one line per problem. */
export function caseProblems(c: ExperimentCase): string[] {
  const lines = c.assertions.filter((a) => a.status === 'fail' || a.status === 'error').map((a) => `${a.label}: ${a.message}`);
  if (c.message) lines.unshift(c.message);
  if (c.status === 'cancelled') lines.push('cancelled before it ended');
  return lines;
}

const caseName = (c: ExperimentCase, repeat: number) => (repeat > 1 ? `${c.case_id} #${c.repeat + 1}` : c.case_id);

export function junitXml(outcomes: readonly DatasetOutcome[]): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  for (const { experiment: e, cases, compare } of outcomes) {
    const body = cases.map((c) => {
      const name = xml(caseName(c, e.repeat));
      const head = `    <testcase classname="${xml(e.dataset)}" name="${name}" time="${secs(c.duration_ms)}">`;
      const problems = caseProblems(c);
      if (c.status === 'passed') {
        const skipped = c.assertions.filter((a) => a.status === 'skipped');
        return skipped.length
          ? `${head}\n      <system-out>${xml(skipped.map((a) => `skipped ${a.label}: ${a.message}`).join('\n'))}</system-out>\n    </testcase>`
          : `${head}</testcase>`;
      }
      const tag = c.status === 'failed' ? 'failure' : c.status === 'cancelled' ? 'skipped' : 'error';
      return `${head}\n      <${tag} message="${xml(problems[0] ?? c.status)}">${xml(problems.join('\n'))}</${tag}>\n    </testcase>`;
    });
    const f = cases.filter((c) => c.status === 'failed').length;
    const er = cases.filter((c) => c.status === 'error').length;
    const sk = cases.filter((c) => c.status === 'cancelled' || c.status === 'pending').length;
    const time = cases.reduce((s, c) => s + (c.duration_ms ?? 0), 0);
    tests += cases.length;
    failures += f;
    errors += er;
    suites.push(
      `  <testsuite name="${xml(e.dataset)}" tests="${cases.length}" failures="${f}" errors="${er}" skipped="${sk}" time="${secs(time)}" timestamp="${xml(e.started_at ?? e.created_at)}">\n${body.join('\n')}\n  </testsuite>`,
    );
    if (compare) {
      const rows = compare.cases.filter((c) => c.verdict !== 'new');
      const regressed = rows.filter((c) => c.verdict === 'regressed');
      tests += rows.length;
      failures += regressed.length;
      const lines = rows.map((c) => {
        const head = `    <testcase classname="${xml(e.dataset)}.baseline" name="${xml(c.case_id)}" time="0">`;
        if (c.verdict !== 'regressed') return `${head}</testcase>`;
        const why = `regressed: pass rate ${rate(c.left?.pass_rate)} -> ${rate(c.right?.pass_rate)}`;
        return `${head}\n      <failure message="${xml(why)}">${xml(why)}</failure>\n    </testcase>`;
      });
      suites.push(
        `  <testsuite name="${xml(e.dataset)} vs baseline" tests="${rows.length}" failures="${regressed.length}" errors="0" skipped="0">\n${lines.join('\n')}\n  </testsuite>`,
      );
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="agent-studio eval" tests="${tests}" failures="${failures}" errors="${errors}">\n${suites.join('\n')}\n</testsuites>\n`;
}

const rate = (r: number | null | undefined) => (r === null || r === undefined ? 'n/a' : `${Math.round(r * 100)}%`);
const md = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function summaryMarkdown(outcomes: readonly DatasetOutcome[]): string {
  const out = [
    '# agent-studio eval',
    '',
    '| dataset | cases | passed | failed | error | cancelled | pass rate | regressed |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const { experiment: e, compare } of outcomes) {
    const c = e.counts;
    out.push(
      `| ${md(e.dataset)} | ${c.total} | ${c.passed} | ${c.failed} | ${c.error} | ${c.cancelled} | ${rate(e.pass_rate)} | ${compare ? compare.counts.regressed : 'n/a'} |`,
    );
  }
  for (const { experiment: e, cases, compare } of outcomes) {
    out.push(
      '',
      `## ${e.dataset}`,
      '',
      `Experiment \`${e.experiment_id}\`, code \`${(e.code_fingerprint ?? '').slice(0, 12)}\`, dataset \`${e.dataset_hash.slice(0, 12)}\`, model ${e.model.provider}${e.model.model ? ` ${e.model.model}` : ''}.`,
    );
    if (e.reason) out.push('', `Ended ${e.status}: ${e.reason}${e.changed_files.length ? ` (${e.changed_files.join(', ')})` : ''}.`);
    const u = e.aggregates?.usage;
    if (u?.calls)
      out.push(
        '',
        `Model calls: ${u.calls}, ${u.total_tokens} tokens (${u.cache_read_tokens} cached), cost ${u.cost_usd === null ? 'unknown' : `$${u.cost_usd}`}${u.unpriced_calls ? ` (no price for ${u.unpriced_models.join(', ')})` : ''}.`,
      );
    const bad = cases.filter((x) => x.status !== 'passed');
    if (bad.length) {
      out.push('', '| case | status | why |', '|---|---|---|');
      for (const x of bad) out.push(`| ${md(caseName(x, e.repeat))} | ${x.status} | ${md(caseProblems(x).join('; '))} |`);
    } else out.push('', 'Every case passed.');
    if (compare) {
      const moved = compare.cases.filter((x) => x.verdict !== 'unchanged');
      out.push(
        '',
        `Against the baseline: ${Object.entries(compare.counts)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ')}.`,
      );
      if (compare.changed_files.length) out.push('', `Changed code files: ${compare.changed_files.map((f) => `\`${f.path}\` (${f.change})`).join(', ')}.`);
      if (moved.length) {
        out.push('', '| case | verdict | pass rate |', '|---|---|---|');
        for (const x of moved) out.push(`| ${md(x.case_id)} | ${x.verdict} | ${rate(x.left?.pass_rate)} -> ${rate(x.right?.pass_rate)} |`);
      }
    }
  }
  return `${out.join('\n')}\n`;
}
