// The studio's unversioned paths (spec 9.3; docs/studio-api.md): /api/runtime (the runtime
// child's state), /api/runtime/trace-sinks (where its trace spans go), /api/project (the open project: name, files, pending edits, diagnostics),
// /api/project/file (a file's text) and /api/save (write a file of the project). Same
// loopback protection and error shape as the Playground API; not versioned.
import fs from 'node:fs/promises';
import { Router } from 'express';
import { projectFile } from '../../common/project-file.ts';
import { fileError, saveProjectFile } from './save.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PlaygroundError } from '../../playground/errors.ts';
import { sha256 } from '../source/analysis.ts';
import { MAX_SOURCE_BYTES, projectFiles } from './files.ts';
import { SaveRequestSchema } from '../../../shared/studio-api.ts';
import type { BlobStore } from '../../playground/store/blobs.ts';
import type { PlaygroundStore } from '../../playground/store/store.ts';
import type { ProjectState } from './state.ts';
import type { RuntimeStatusReply, TraceSinksReply } from '../../../shared/studio-api.ts';
import type { DatasetDiagnostic } from '../../../shared/datasets.ts';

export interface StudioRoutesOptions {
  projectDir: string;
  project: ProjectState;
  store: PlaygroundStore;
  blobs: BlobStore;
  runtimeStatus: () => RuntimeStatusReply;
  /** The runtime child's trace sinks (its GET /api/v1/status), when it is running. */
  traceSinks?: () => Promise<TraceSinksReply>;
  /** The problems of the project's dataset files (evals/*.jsonl), with file:line. */
  datasetDiagnostics?: () => DatasetDiagnostic[];
}

export function createStudioRoutes(o: StudioRoutesOptions): Router {
  const router = Router();
  router.use(jsonBody({ limit: '3mb' }));

  router.get('/api/runtime', (_req, res) => {
    res.json(o.runtimeStatus());
  });

  router.get('/api/runtime/trace-sinks', async (_req, res, next) => {
    try {
      res.json(o.traceSinks ? await o.traceSinks() : { available: false, trace_sinks: {}, reason: 'no runtime' });
    } catch (err) {
      next(err);
    }
  });

  router.get('/api/project', async (_req, res, next) => {
    try {
      const code = o.project.code();
      res.json({
        ...o.project.status(),
        files: projectFiles(o.projectDir),
        fingerprint: code.fingerprint,
        file_sha256: code.files,
        // Beside the manifest's diagnostics, not among them: a bad dataset line never stops a run.
        dataset_diagnostics: o.datasetDiagnostics?.() ?? [],
      });
    } catch (err) {
      next(err);
    }
  });

  router.get('/api/project/file', async (req, res, next) => {
    try {
      const rel = typeof req.query.path === 'string' ? req.query.path : '';
      if (!rel) throw new PlaygroundError('invalid_request', 'give the file as ?path=<project-relative path>');
      // ?run=RUN: the file as it was when that run ran (its code fingerprint's blobs).
      if (typeof req.query.run === 'string') {
        const run = o.store.getRun(req.query.run);
        if (!run) throw new PlaygroundError('not_found', `no run with id '${req.query.run}'`, { run_id: req.query.run });
        const sha = run.code_files?.[rel];
        if (!sha || !o.blobs.has(sha)) throw new PlaygroundError('not_found', `run ${run.run_id} did not run with a file ${rel}`);
        const content = o.blobs.get(sha).toString('utf8');
        res.json({ path: rel, content, sha256: sha, size: Buffer.byteLength(content), run_id: run.run_id });
        return;
      }
      const abs = await projectFile(o.projectDir, rel).catch((err) => {
        throw fileError(err);
      });
      const buf = await fs.readFile(abs);
      if (buf.length > MAX_SOURCE_BYTES) throw new PlaygroundError('payload_too_large', `${rel} is larger than the 2 MB the source view opens`);
      res.json({ path: rel, content: buf.toString('utf8'), sha256: sha256(buf.toString('utf8')), size: buf.length });
    } catch (err) {
      next(err);
    }
  });

  router.post('/api/save', async (req, res, next) => {
    try {
      const body = SaveRequestSchema.parse(req.body ?? {});
      res.json(await saveProjectFile(o, body.path, body.content, body.base_sha256));
    } catch (err) {
      next(err);
    }
  });

  return router;
}
