// The datasets and experiments endpoints under /api/playground/v1 (docs/playground-api.md,
// "Datasets and experiments (extensions of spec 4.3)"). Requests are parsed with the zod
// schemas of src/shared/experiments.ts; errors are the Playground's `{detail}`.
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { MockService } from '../mocks/mocks.ts';
import {
  AddCaseBodySchema,
  CreateDatasetBodySchema,
  CreateExperimentBodySchema,
  ExperimentCasesQuerySchema,
  ExperimentCompareQuerySchema,
} from '../../../shared/experiments.ts';
import type { ExperimentDetail } from '../../../shared/experiments.ts';
import { PLAYGROUND_PREFIX } from '../../../shared/playground.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import { PlaygroundError, notFound } from '../errors.ts';
import type { PlaygroundService } from '../service.ts';
import { aggregates } from './aggregates.ts';
import { compareExperiments, type CompareSide } from './compare.ts';
import type { DatasetService } from './datasets.ts';
import { streamExperiment } from './events.ts';
import type { ExperimentRunner } from './runner.ts';
import type { CaseRecord, ExperimentRecord, ExperimentStore } from './store.ts';
import { emptyTotals, sumTotals } from '../../../shared/usage.ts';
import type { UsageReader } from '../usage.ts';

export interface ExperimentRoutesOptions {
  datasets: DatasetService;
  runner: ExperimentRunner;
  experiments: ExperimentStore;
  service: PlaygroundService;
  usage: Pick<UsageReader, 'experiment'>;
  /** Keeps an experiment's `mocks` create option for its cases' runs (mocks/, D-103). */
  mocks?: MockService;
}

/** Each case with the tokens and cost of its hidden session's runs (docs/playground-api.md
 * "Tokens and cost"); `tokens` (input / output) from them. */
export function withUsage<C extends Pick<CaseRecord, 'session_id' | 'status'>>(
  cases: readonly C[],
  e: ExperimentRecord,
  usage: Pick<UsageReader, 'experiment'> | undefined,
): C[] {
  if (!usage) return [...cases];
  const by = usage.experiment(e.experiment_id, e.status !== 'running');
  return cases.map((c) => {
    const u = c.session_id ? (by.get(c.session_id) ?? (c.status === 'pending' ? null : emptyTotals())) : null;
    return { ...c, usage: u, tokens: u && u.input_tokens + u.output_tokens > 0 ? { input: u.input_tokens, output: u.output_tokens } : null };
  });
}

const ListSchema = z.object({
  dataset: z.string().min(1).optional(),
  cursor: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const EXPERIMENT_ID = /^exp_[0-9A-HJKMNP-TV-Z]{26}$/;
const badCursor = () => new PlaygroundError('invalid_request', 'cursor is not one this API issued; pass next_cursor unchanged');
const encode = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
const decode = (s: string) => Buffer.from(s, 'base64url').toString('utf8');

/** The experiment's full view: summary, code, model and aggregates. */
export function experimentDetail(store: ExperimentStore, e: ExperimentRecord, usage?: Pick<UsageReader, 'experiment'>): ExperimentDetail {
  const cases = withUsage(store.allCases(e.experiment_id), e, usage);
  const agg = aggregates(cases);
  return {
    ...store.summary(e),
    code_files: e.code_files,
    model: e.model,
    cases_filter: e.cases_filter,
    tags_filter: e.tags_filter,
    changed_files: e.changed_files,
    aggregates: usage ? { ...agg, usage: sumTotals(cases.flatMap((c) => (c.usage ? [c.usage] : []))) } : agg,
  };
}

/** Deletes a finished experiment with its hidden sessions and their runs. */
export function deleteExperiment(o: Pick<ExperimentRoutesOptions, 'experiments' | 'service'>, id: string): void {
  for (const sessionId of o.experiments.sessionIds(id)) o.service.deleteSession(sessionId);
  o.experiments.remove(id);
}

export function compareSide(store: ExperimentStore, e: ExperimentRecord, usage?: Pick<UsageReader, 'experiment'>): CompareSide {
  return { summary: store.summary(e), code_files: e.code_files, cases: withUsage(store.allCases(e.experiment_id), e, usage) };
}

export function createExperimentRoutes(o: ExperimentRoutesOptions): Router {
  const router = Router();
  const json = jsonBody({ limit: PLAYGROUND_BODY_LIMIT });
  const bodyOf = (req: Request): unknown => req.body ?? {};
  const experiment = (id: string): ExperimentRecord => {
    const e = o.experiments.get(id);
    if (!e) throw notFound('experiment', id);
    return e;
  };

  router.get('/datasets', (_req, res) => {
    res.json({ items: o.datasets.list() });
  });

  router.get('/datasets/:name', (req, res) => {
    res.json(o.datasets.get(req.params.name));
  });

  router.post('/datasets', json, async (req, res) => {
    const body = CreateDatasetBodySchema.parse(bodyOf(req));
    const d = await o.datasets.create(body.name, body.description);
    res.status(201).location(`${PLAYGROUND_PREFIX}/datasets/${d.name}`).json(d);
  });

  router.post('/datasets/:name/cases', json, async (req, res) => {
    const body = AddCaseBodySchema.parse(bodyOf(req));
    res.status(201).json(await o.datasets.addCase(String(req.params.name), body));
  });

  router.post('/experiments', json, (req, res) => {
    const accepted = o.runner.start(bodyOf(req) as never);
    o.mocks?.setExperiment(accepted.experiment_id, CreateExperimentBodySchema.parse(bodyOf(req)).mocks ?? []);
    res.status(202).location(`${PLAYGROUND_PREFIX}/experiments/${accepted.experiment_id}`).json(accepted);
  });

  router.get('/experiments', (req, res) => {
    const q = ListSchema.parse(req.query);
    let before: string | null = null;
    if (q.cursor !== undefined) {
      before = decode(q.cursor);
      if (!EXPERIMENT_ID.test(before)) throw badCursor();
    }
    const rows = o.experiments.list(q.dataset ?? null, before, q.limit + 1);
    const items = rows.slice(0, q.limit);
    const more = rows.length > q.limit;
    res.json({ items: items.map((e) => o.experiments.summary(e)), next_cursor: more ? encode(items[items.length - 1]!.experiment_id) : null });
  });

  router.get('/experiments/compare', (req, res) => {
    const q = ExperimentCompareQuerySchema.parse(req.query);
    res.json(compareExperiments(compareSide(o.experiments, experiment(q.left), o.usage), compareSide(o.experiments, experiment(q.right), o.usage)));
  });

  router.get('/experiments/:id', (req, res) => {
    res.json(experimentDetail(o.experiments, experiment(req.params.id), o.usage));
  });

  router.get('/experiments/:id/cases', (req, res) => {
    const e = experiment(req.params.id);
    const q = ExperimentCasesQuerySchema.parse(req.query);
    let after = 0;
    if (q.cursor !== undefined) {
      const m = /^seq:(\d{1,9})$/.exec(decode(q.cursor));
      if (!m) throw badCursor();
      after = Number(m[1]);
    }
    const rows = o.experiments.cases(e.experiment_id, { after, failures: q.filter === 'failures', tag: q.tag ?? null, limit: q.limit + 1 });
    const items = rows.slice(0, q.limit);
    const more = rows.length > q.limit;
    res.json({ items: withUsage(items, e, o.usage).map(({ seq: _seq, ...c }) => c), next_cursor: more ? encode(`seq:${items[items.length - 1]!.seq}`) : null });
  });

  router.get('/experiments/:id/events', (req, res) => {
    const e = experiment(req.params.id); // 404 before any SSE header
    streamExperiment(res, o.experiments, e.experiment_id);
  });

  router.delete('/experiments/:id', (req, res) => {
    const e = experiment(req.params.id);
    if (e.status === 'running') {
      o.runner.stop(e.experiment_id, 'user_cancelled');
      res.json(experimentDetail(o.experiments, experiment(e.experiment_id), o.usage));
      return;
    }
    deleteExperiment(o, e.experiment_id);
    res.status(204).end();
  });

  return router;
}
