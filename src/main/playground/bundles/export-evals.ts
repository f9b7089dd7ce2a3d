// The optional bundle keys `datasets` and `experiments` (docs/playground-api.md, "POST
// /bundles/export"; docs/evaluation.md, "Sharing"): the selected dataset files as they are
// now, and the selected experiments with their cases; the experiments' hidden sessions go in
// the bundle's `sessions` (with every run) like any selected session. Deterministic: datasets
// by name, experiments by id, cases in the experiment's order, keys in a fixed order.
import type { BundleDataset, BundleExperiment, BundleExperimentCase } from '../../../shared/bundle-evals.ts';
import { datasetHash } from '../evals/dataset-file.ts';
import type { DatasetService } from '../experiments/datasets.ts';
import type { CaseRecord, ExperimentRecord, ExperimentStore } from '../experiments/store.ts';

export interface EvalSelection {
  experiment_ids: string[];
  datasets: string[];
}

export interface EvalsPlan {
  experiments: { record: ExperimentRecord; sessionIds: string[] }[];
  datasets: BundleDataset[];
  /** Whether the request named any (the key is written only then). */
  asked: { experiments: boolean; datasets: boolean };
  /** The hidden sessions of the experiments: exported as selected sessions. */
  sessionIds: string[];
  missing: EvalSelection;
}

export interface EvalSources {
  experiments: ExperimentStore;
  datasets: DatasetService;
}

/** Resolves the experiments and datasets the request names; unknown ones are listed in
 * `missing` (the export answers 404 naming them with any unknown session or run). */
export function planEvals(src: EvalSources, sel: EvalSelection): EvalsPlan {
  const expIds = [...new Set(sel.experiment_ids)].sort();
  const names = [...new Set(sel.datasets)].sort();
  const missing: EvalSelection = { experiment_ids: [], datasets: [] };
  const experiments: EvalsPlan['experiments'] = [];
  for (const id of expIds) {
    const record = src.experiments.get(id);
    if (!record) missing.experiment_ids.push(id);
    else experiments.push({ record, sessionIds: src.experiments.sessionIds(id).sort() });
  }
  const datasets: BundleDataset[] = [];
  for (const name of names) {
    const text = src.datasets.text(name);
    if (text === undefined) missing.datasets.push(name);
    else datasets.push({ name, text, hash: datasetHash(text) });
  }
  return {
    experiments,
    datasets,
    asked: { experiments: expIds.length > 0, datasets: names.length > 0 },
    sessionIds: experiments.flatMap((e) => e.sessionIds),
    missing,
  };
}

/** The experiment's record as a bundle carries it, without its cases (written one by one). */
export function bundleExperimentHead(e: ExperimentRecord, sessionIds: string[]): Omit<BundleExperiment, 'cases'> {
  return {
    experiment_id: e.experiment_id,
    dataset: e.dataset,
    dataset_file: e.dataset_file,
    dataset_hash: e.dataset_hash,
    status: e.status,
    reason: e.reason,
    repeat: e.repeat,
    concurrency: e.concurrency,
    cases_filter: e.cases_filter,
    tags_filter: e.tags_filter,
    code_fingerprint: e.code_fingerprint,
    code_files: e.code_files,
    model: { provider: e.model.provider, model: e.model.model, base_url_host: e.model.base_url_host, real: e.model.real },
    changed_files: e.changed_files,
    created_at: e.created_at,
    started_at: e.started_at,
    ended_at: e.ended_at,
    session_ids: sessionIds,
  };
}

export function bundleCase(c: CaseRecord): BundleExperimentCase {
  return {
    case_id: c.case_id,
    repeat: c.repeat,
    description: c.description,
    tags: c.tags,
    input_preview: c.input_preview,
    status: c.status,
    run_id: c.run_id,
    session_id: c.session_id,
    run_status: c.run_status,
    run_reason: c.run_reason,
    error_code: c.error_code,
    duration_ms: c.duration_ms,
    assertions: c.assertions.map((a) => ({ type: a.type, label: a.label, status: a.status, message: a.message })),
    scores: c.scores,
    message: c.message,
  };
}

/** Writes `,"datasets":[...]` and `,"experiments":[...]` (each only when asked), a case at a
 * time. */
export async function writeEvals(put: (chunk: string) => Promise<void>, plan: EvalsPlan, experiments: ExperimentStore): Promise<void> {
  if (plan.asked.datasets) {
    await put(',"datasets":[');
    for (const [i, d] of plan.datasets.entries()) await put((i ? ',' : '') + JSON.stringify({ name: d.name, text: d.text, hash: d.hash }));
    await put(']');
  }
  if (!plan.asked.experiments) return;
  await put(',"experiments":[');
  for (const [i, e] of plan.experiments.entries()) {
    const head = JSON.stringify(bundleExperimentHead(e.record, e.sessionIds));
    await put(`${i ? ',' : ''}${head.slice(0, -1)},"cases":[`);
    const cases = experiments.allCases(e.record.experiment_id);
    for (const [j, c] of cases.entries()) await put((j ? ',' : '') + JSON.stringify(bundleCase(c)));
    await put(']}');
  }
  await put(']');
}
