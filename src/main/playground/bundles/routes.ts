// The bundle routes (spec 4.3 rules 6-8): export streams the bundle; import streams it into a
// staging area while checking it (D-96), checks the rest, then writes it (or, with
// ?dry_run=true, answers what it would do and writes nothing). Mounted before the rest of the
// Playground API: import reads its own body, far larger than the others.
import { Router } from 'express';
import type { Logger } from 'pino';
import { BundleExportRequestSchema, BundleImportQuerySchema, type Bundle } from '../../../shared/bundle.ts';
import { jsonBody } from '../../http/json-body.ts';
import { BUNDLE_IMPORT_BODY_LIMIT, BUNDLE_IMPORT_BODY_LIMIT_BYTES, PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import type { EventLog } from '../events/log.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { PlaygroundStore } from '../store/store.ts';
import type { DatasetService } from '../experiments/datasets.ts';
import type { ExperimentStore } from '../experiments/store.ts';
import { planExport, schemasUsed, writeBundle } from './export.ts';
import { planEvals } from './export-evals.ts';
import { listDatasetFiles } from './export-extras.ts';
import { checkBundle } from './import.ts';
import { planDatasets, writeDatasets } from './import-evals.ts';
import { planDatasetFiles, removeDatasetFiles, writeDatasetFiles } from './import-extras.ts';
import { assertSupportedStore, planOf, writeImport } from './import-write.ts';
import { readBundle, type ReadBundle } from './read.ts';

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
      const datasetFiles = listDatasetFiles(
        o.datasets.projectDir,
        evals.datasets.map((d) => d.name),
      );
      await writeBundle(res, plan, o, {
        project,
        schemaVersion: o.store.schemaVersion,
        contracts,
        evals: { plan: evals, experiments: o.experiments },
        datasetFiles,
      });
      res.end();
    } catch (err) {
      if (!res.headersSent) return next(err);
      // Mid-stream: the client sees a truncated body (not valid JSON), never a wrong bundle.
      o.logger.error({ err }, 'bundle export failed mid-stream');
      res.destroy(err as Error);
    }
  });

  router.post('/bundles/import', async (req, res) => {
    let read: ReadBundle;
    let dryRun: boolean;
    try {
      const { dry_run } = BundleImportQuerySchema.parse(req.query);
      dryRun = dry_run === 'true' || dry_run === '1';
      read = await readBundle(req, o.blobs, BUNDLE_IMPORT_BODY_LIMIT_BYTES, BUNDLE_IMPORT_BODY_LIMIT);
    } catch (err) {
      // Refused before the whole body was read: answer, then close the connection (the rest of
      // the body is never read).
      if (!req.complete) res.setHeader('connection', 'close');
      throw err;
    }
    try {
      const checked = checkBundle(read);
      const projectDir = o.datasets.projectDir;
      if (dryRun) {
        res.json(planOf(checked, o.blobs, true, planDatasets(checked.bundle, o.datasets), planDatasetFiles(checked.bundle, projectDir).plan));
        return;
      }
      assertSupportedStore(o.store);
      // Dataset files first (removed again if the rows fail), then blobs and rows.
      const datasets = planDatasets(checked.bundle, o.datasets);
      const files = planDatasetFiles(checked.bundle, projectDir);
      const written = await writeDatasets(checked.bundle, datasets, o.datasets);
      let result;
      let filesWritten: string[] = [];
      try {
        filesWritten = writeDatasetFiles(files, read.staging, projectDir);
        result = writeImport(o.store, o.blobs, checked, { experiments: o.experiments, datasets, files: files.plan });
      } catch (err) {
        removeDatasetFiles(filesWritten, projectDir);
        for (const name of written) o.datasets.removeFile(name);
        throw err;
      }
      o.logger.info(
        {
          sessions: result.create.sessions,
          runs: result.create.runs,
          events: result.create.events,
          experiments: result.create.experiments,
          datasets: written.length,
          dataset_files: filesWritten.length,
          blobs_new: result.blobs.new,
        },
        'bundle imported',
      );
      res.status(201).json(result);
    } finally {
      read.staging.dispose();
    }
  });

  return router;
}
