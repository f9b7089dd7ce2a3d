// `agent-studio eval --project DIR [--dataset NAME] [--baseline FILE|last] [--repeat N]
// [--concurrency N] [--out DIR] [--data-dir DIR]` (docs/evaluation.md, "In CI"): the studio's
// main-process services headless (as `serve` starts them, with no UI) run the project's
// datasets as experiments, print progress, write results.json, junit.xml and summary.md, and
// exit 0 when every case passed (and, with a baseline, none regressed), 1 otherwise, 2 on a
// usage error.
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { parseFlags, UsageError } from '../cli-args.ts';
import { ResultsFileSchema, type ExperimentCase, type ExperimentDetail, type ResultsFile } from '../../shared/experiments.ts';
import { compareExperiments, type CompareSide } from '../playground/experiments/compare.ts';
import { compareSide, experimentDetail, withUsage } from '../playground/experiments/routes.ts';
import type { UsageReader } from '../playground/usage.ts';
import { caseProblems, junitXml, resultsFile, summaryMarkdown, type DatasetOutcome } from '../playground/experiments/reports.ts';
import type { ExperimentStore } from '../playground/experiments/store.ts';
import { datasetFile } from '../playground/evals/dataset-file.ts';
import { StoreVersionError } from '../playground/store/db.ts';
import { agentName } from '../common/agent-name.ts';
import { startStudio, StudioStartError, type RunningStudio } from './studio.ts';

const int = (v: string | boolean | undefined, name: string, min: number, max: number, fallback: number): number => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || n < min || n > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${String(v)}'`);
  return n;
};

function readBaseline(file: string): ResultsFile {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UsageError(`--baseline ${file}: ${(err as Error).message}`);
  }
  const parsed = ResultsFileSchema.safeParse(raw);
  if (!parsed.success) throw new UsageError(`--baseline ${file} is not an agent-studio eval results.json: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

const sideOf = (e: ExperimentDetail, cases: readonly ExperimentCase[]): CompareSide => ({ summary: e, code_files: e.code_files, cases });
const done = (e: ExperimentDetail) => e.counts.total - e.counts.pending - e.counts.running;

export async function runEvalCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, {
    project: { type: 'string' },
    dataset: { type: 'string' },
    baseline: { type: 'string' },
    repeat: { type: 'string' },
    concurrency: { type: 'string' },
    out: { type: 'string' },
    'data-dir': { type: 'string' },
  });
  if (typeof flags.project !== 'string' || !flags.project) throw new UsageError('eval needs --project DIR (the folder holding agent.json and evals/)');
  const projectDir = path.resolve(flags.project);
  if (!fs.existsSync(path.join(projectDir, 'agent.json'))) throw new UsageError(`--project ${projectDir} holds no agent.json`);
  const repeat = int(flags.repeat, 'repeat', 1, 20, 1);
  const concurrency = int(flags.concurrency, 'concurrency', 1, 16, 4);
  const baselineArg = typeof flags.baseline === 'string' ? flags.baseline : null;
  const baselineFile = baselineArg && baselineArg !== 'last' ? readBaseline(path.resolve(baselineArg)) : null;
  // The datasets are checked before anything starts, so a typo answers at once.
  const dataset = typeof flags.dataset === 'string' ? flags.dataset : null;
  if (dataset && !fs.existsSync(path.join(projectDir, datasetFile(dataset)))) throw new UsageError(`no dataset ${dataset} (${datasetFile(dataset)})`);
  const outDir = path.resolve(typeof flags.out === 'string' ? flags.out : path.join(projectDir, '.agent-studio', 'eval'));
  const say = (line: string) => process.stdout.write(`${line}\n`);

  let studio: RunningStudio;
  try {
    const dataDir = typeof flags['data-dir'] === 'string' ? flags['data-dir'] : undefined;
    const logger = pino({ name: 'agent-studio', level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
    studio = await startStudio({ projectDir, port: 0, dataDir, logger, rendererDir: path.join(projectDir, '.agent-studio', 'no-renderer') });
  } catch (err) {
    if (err instanceof StudioStartError || err instanceof StoreVersionError) {
      process.stderr.write(`agent-studio eval: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  let code = 1;
  try {
    code = await evaluate(studio, { projectDir, dataset, repeat, concurrency, outDir, baselineArg, baselineFile, say });
  } catch (err) {
    if (err instanceof UsageError) {
      await studio.close();
      throw err;
    }
    process.stderr.write(`agent-studio eval: ${(err as Error).message}\n`);
  }
  await studio.close();
  process.exit(code);
}

interface EvalOptions {
  projectDir: string;
  dataset: string | null;
  repeat: number;
  concurrency: number;
  outDir: string;
  baselineArg: string | null;
  baselineFile: ResultsFile | null;
  say: (line: string) => void;
}

async function evaluate(studio: RunningStudio, o: EvalOptions): Promise<number> {
  const { datasets, runner, store, usage } = studio.experiments;
  const names = o.dataset ? [o.dataset] : datasets.names();
  if (names.length === 0) throw new UsageError(`${o.projectDir} has no datasets (evals/<name>.jsonl)`);
  for (const n of names) if (!datasets.read(n)) throw new UsageError(`no dataset ${n} (evals/${n}.jsonl)`);
  // `last`: the newest completed experiment of each dataset, chosen before this run adds one.
  const last = new Map(names.map((n) => [n, o.baselineArg === 'last' ? store.newestFinished(n) : undefined]));
  const ready = await studio.runtime.waitReady(120_000);
  if (!ready) o.say('the runtime did not become ready; the cases will fail as runtime_unavailable');
  o.say(`agent-studio eval: ${agentName(o.projectDir)}, ${names.length} dataset(s), repeat ${o.repeat}, concurrency ${o.concurrency}`);

  const outcomes: DatasetOutcome[] = [];
  for (const name of names) {
    for (const d of datasets.get(name).diagnostics) o.say(`  ${d.file}:${d.line ?? 0}: ${d.message}`);
    const { experiment_id } = runner.start({ dataset: name, repeat: o.repeat, concurrency: o.concurrency });
    const e = await follow(store, experiment_id, name, o.say, usage, store.whenFinished(experiment_id));
    const cases = withUsage(store.allCases(experiment_id), store.get(experiment_id)!, usage).map(({ seq: _seq, ...c }) => c);
    for (const c of cases.filter((x) => x.status !== 'passed')) {
      o.say(`  ${c.status.toUpperCase()} ${c.case_id}${o.repeat > 1 ? ` #${c.repeat + 1}` : ''}${c.run_id ? ` (${c.run_id})` : ''}`);
      for (const p of caseProblems(c)) o.say(`    ${p}`);
    }
    outcomes.push({ experiment: e, cases, compare: baselineCompare(store, o, name, last.get(name), e, cases) });
  }

  fs.mkdirSync(o.outDir, { recursive: true });
  fs.writeFileSync(path.join(o.outDir, 'results.json'), `${JSON.stringify(resultsFile(agentName(o.projectDir), outcomes), null, 2)}\n`);
  fs.writeFileSync(path.join(o.outDir, 'junit.xml'), junitXml(outcomes));
  fs.writeFileSync(path.join(o.outDir, 'summary.md'), summaryMarkdown(outcomes));
  o.say(`wrote ${path.join(o.outDir, 'results.json')}, junit.xml, summary.md`);

  const failed = outcomes.some((x) => x.experiment.status !== 'completed' || x.cases.some((c) => c.status !== 'passed'));
  const regressed = outcomes.some((x) => (x.compare?.counts.regressed ?? 0) > 0);
  o.say(
    failed || regressed
      ? `FAILED${failed ? ': some cases did not pass' : ''}${regressed ? `${failed ? ';' : ':'} some cases regressed against the baseline` : ''}`
      : 'PASSED',
  );
  return failed || regressed ? 1 : 0;
}

/** Polls the experiment, printing a progress line whenever more cases ended; answers as soon
 * as it has `ended`. */
async function follow(
  store: ExperimentStore,
  id: string,
  name: string,
  say: (l: string) => void,
  usage: UsageReader,
  ended: Promise<void>,
): Promise<ExperimentDetail> {
  let shown = -1;
  for (;;) {
    // Usage only once it ended: while it runs the progress line needs none.
    const record = store.get(id)!;
    const e = experimentDetail(store, record, record.status === 'running' ? undefined : usage);
    const n = done(e);
    if (n !== shown || e.status !== 'running') {
      shown = n;
      say(
        `[${name}] ${n}/${e.counts.total} done: ${e.counts.passed} passed, ${e.counts.failed} failed, ${e.counts.error} error${e.counts.cancelled ? `, ${e.counts.cancelled} cancelled` : ''}`,
      );
    }
    if (e.status !== 'running') {
      if (e.reason) say(`[${name}] ${e.status}: ${e.reason}${e.changed_files.length ? ` (${e.changed_files.join(', ')})` : ''}`);
      return e;
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ended, new Promise((r) => (timer = setTimeout(r, 250)))]);
    clearTimeout(timer);
  }
}

function baselineCompare(
  store: ExperimentStore,
  o: EvalOptions,
  name: string,
  last: ReturnType<ExperimentStore['get']>,
  e: ExperimentDetail,
  cases: ExperimentCase[],
) {
  const current = sideOf(e, cases);
  if (o.baselineArg === 'last') {
    if (!last) {
      o.say(`[${name}] no earlier completed experiment of ${name} in the studio data: nothing to compare`);
      return null;
    }
    return report(compareExperiments(compareSide(store, last), current), name, o.say);
  }
  if (!o.baselineFile) return null;
  const base = o.baselineFile.experiments.find((x) => x.experiment.dataset === name);
  if (!base) {
    o.say(`[${name}] the baseline has no experiment of ${name}: nothing to compare`);
    return null;
  }
  return report(compareExperiments(sideOf(base.experiment, base.cases), current), name, o.say);
}

function report(cmp: ReturnType<typeof compareExperiments>, name: string, say: (l: string) => void) {
  say(
    `[${name}] against the baseline ${cmp.left.experiment_id}: ${Object.entries(cmp.counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}`,
  );
  for (const c of cmp.cases.filter((x) => x.verdict === 'regressed'))
    say(`  REGRESSED ${c.case_id}: pass rate ${c.left?.pass_rate ?? 'n/a'} -> ${c.right?.pass_rate ?? 'n/a'}`);
  if (cmp.changed_files.length) say(`  changed code files: ${cmp.changed_files.map((f) => f.path).join(', ')}`);
  return cmp;
}
