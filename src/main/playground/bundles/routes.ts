// The bundle routes (spec 4.3 rules 6-8): export streams the bundle; import checks it all,
// then writes it (or, with ?dry_run=true, answers what it would do and writes nothing).
// Mounted before the rest of the Playground API: import takes a larger body.
import { Router } from 'express';
import type { Logger } from 'pino';
import { BundleExportRequestSchema, BundleImportQuerySchema, type Bundle } from '../../../shared/bundle.ts';
import { jsonBody } from '../../http/json-body.ts';
import { BUNDLE_IMPORT_BODY_LIMIT, PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import type { EventLog } from '../events/log.ts';
import { PlaygroundError } from '../errors.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { PlaygroundStore } from '../store/store.ts';
import type { DatasetService } from '../experiments/datasets.ts';
import type { ExperimentStore } from '../experiments/store.ts';
import { planExport, schemasUsed, writeBundle } from './export.ts';
import { planEvals } from './export-evals.ts';
import { assertSupportedStore, checkBundle, planOf, unwrap, writeImport } from './import.ts';
import { planDatasets, writeDatasets } from './import-evals.ts';

export interface BundleRoutesOptions {
  store: PlaygroundStore;
  blobs: BlobStore;
  log: EventLog;
  logger: Logger;
  /** The open project's name (recorded as the bundle's source). */
  projectName(): string;
  /** The project's input contracts as the runtime has loaded them; null when it is not running. */
  contracts(): Promise<Bundle['input_contracts']>;
  /** Experiments and dataset files (the optional bundle keys). */
  experiments: ExperimentStore;
  datasets: DatasetService;
}

export function createBundleRoutes(o: BundleRoutesOptions): Router {
  const router = Router();

  router.post('/bundles/export', jsonBody({ limit: PLAYGROUND_BODY_LIMIT }), async (req, res, next) => {
    try {
      const sel = BundleExportRequestSchema.parse(req.body ?? {});
      const evals = planEvals(o, sel);
      const plan = planExport(o.store, sel, evals);
      const used = new Set(schemasUsed(plan));
      const all = await o.contracts().catch(() => null);
      const contracts = all === null ? null : all.filter((c) => used.has(c.schema)).sort((a, b) => (a.schema < b.schema ? -1 : 1));
      const project = o.projectName();
      res.status(200);
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.setHeader('content-disposition', `attachment; filename="${project.replace(/[^A-Za-z0-9._-]/g, '_')}.agentbundle.json"`);
      await writeBundle(res, plan, o, { project, schemaVersion: o.store.schemaVersion, contracts, evals: { plan: evals, experiments: o.experiments } });
      res.end();
    } catch (err) {
      if (!res.headersSent) return next(err);
      // Mid-stream: the client sees a truncated body (not valid JSON), never a wrong bundle.
      o.logger.error({ err }, 'bundle export failed mid-stream');
      res.destroy(err as Error);
    }
  });

  router.post('/bundles/import', jsonBody({ limit: BUNDLE_IMPORT_BODY_LIMIT }), async (req, res) => {
    const { dry_run } = BundleImportQuerySchema.parse(req.query);
    const dryRun = dry_run === 'true' || dry_run === '1';
    if (req.body === undefined)
      throw new PlaygroundError('invalid_bundle', 'send the bundle as the JSON body', { problems: [{ path: '', message: 'no body' }] });
    const checked = checkBundle(unwrap(req.body));
    if (dryRun) {
      res.json(planOf(checked, o.blobs, true, planDatasets(checked.bundle, o.datasets)));
      return;
    }
    assertSupportedStore(o.store);
    // Dataset files first (removed again if the rows fail), then blobs and rows.
    const datasets = planDatasets(checked.bundle, o.datasets);
    const written = await writeDatasets(checked.bundle, datasets, o.datasets);
    let result;
    try {
      result = writeImport(o.store, o.blobs, checked, { experiments: o.experiments, datasets });
    } catch (err) {
      for (const name of written) o.datasets.removeFile(name);
      throw err;
    }
    o.logger.info(
      {
        sessions: result.create.sessions,
        runs: result.create.runs,
        experiments: result.create.experiments,
        datasets: written.length,
        blobs_new: result.blobs.new,
      },
      'bundle imported',
    );
    res.status(201).json(result);
  });

  return router;
}
