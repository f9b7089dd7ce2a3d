// Studio views of the open project, under /api/playground/v1: the runtime's graph, the
// declared input contracts for the composer, stored file blobs, and the runtime's state.
import fs from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import type { BlobStore } from '../playground/store/blobs.ts';
import type { RuntimeHandle } from '../playground/executor/runtime.ts';
import { PlaygroundError } from '../playground/errors.ts';
import { ManifestSchema, MANIFEST_FILE } from '../runtime/project/manifest.ts';

export interface ProjectRoutesOptions {
  projectDir: string;
  blobs: BlobStore;
  runtime: RuntimeHandle;
  runtimeStatus: () => unknown;
}

/** Input contracts straight from the manifest (no runtime needed): id, tab label, schema. */
export function readContracts(projectDir: string) {
  const raw = JSON.parse(fs.readFileSync(path.join(projectDir, MANIFEST_FILE), 'utf8'));
  const manifest = ManifestSchema.parse(raw);
  return manifest.inputContracts.map((c) => {
    let jsonSchema = c.jsonSchema;
    if (!jsonSchema && c.file) {
      try {
        jsonSchema = JSON.parse(fs.readFileSync(path.join(projectDir, c.file), 'utf8'));
      } catch {
        jsonSchema = undefined;
      }
    }
    return { schema: c.schema, name: c.name ?? c.schema, description: c.description, json_schema: jsonSchema ?? null };
  });
}

export function createProjectRoutes(o: ProjectRoutesOptions): Router {
  const router = Router();

  router.get('/graph', async (_req, res, next) => {
    try {
      const base = await o.runtime.waitReady(5_000);
      if (!base) throw new PlaygroundError('runtime_unavailable', 'the runtime is not running, so its graph cannot be shown');
      const upstream = await fetch(`${base}graph`, { signal: AbortSignal.timeout(5_000) });
      res.status(upstream.status).json(await upstream.json());
    } catch (err) {
      next(err);
    }
  });

  router.get('/composer-schema', (_req, res, next) => {
    try {
      res.json({ contracts: readContracts(o.projectDir) });
    } catch (err) {
      next(new PlaygroundError('project_invalid', `agent.json cannot be read: ${(err as Error).message}`));
    }
  });

  router.get('/blobs/:sha256', (req, res, next) => {
    const sha = req.params.sha256;
    if (!/^[0-9a-f]{64}$/.test(sha) || !o.blobs.has(sha)) return next(new PlaygroundError('not_found', `no blob ${sha}`));
    res.setHeader('content-type', 'application/octet-stream');
    res.setHeader('content-disposition', `attachment; filename="${sha}"`);
    res.send(o.blobs.get(sha));
  });

  router.get('/runtime', (_req, res) => {
    res.json(o.runtimeStatus());
  });

  return router;
}
