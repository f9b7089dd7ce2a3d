// GET /healthz (spec 4.2: ready when the store answers and the project is loaded) and
// GET /graph (the loaded graph's nodes and edges, project/graph-view.ts).
import express from 'express';
import type { Registry } from '../project/registry.ts';
import type { MemoryStore } from '../store/types.ts';
import { describeGraph } from '../project/graph-view.ts';
import { GRAPH_ROUTE, HEALTH_ROUTE } from '../../../shared/runtime-contract.ts';

export interface ProbeDeps {
  store: Pick<MemoryStore, 'ping' | 'backend'>;
  registry: Pick<Registry, 'loaded' | 'current'>;
  /** Invocations running in this process now. */
  activeTasks: () => number;
}

export function probeRouter({ store, registry, activeTasks }: ProbeDeps): express.Router {
  const router = express.Router();
  router.get(HEALTH_ROUTE, async (_req, res) => {
    try {
      await store.ping();
    } catch (err) {
      res.status(503).json({ status: 'unavailable', reason: `store not ready: ${(err as Error).message}` });
      return;
    }
    if (!registry.loaded) {
      res.status(503).json({ status: 'unavailable', reason: 'project not loaded' });
      return;
    }
    const gen = registry.current;
    res.json({
      status: 'ok',
      agent: gen.project.manifest.name,
      version: gen.project.manifest.version,
      generation: gen.number,
      store: store.backend,
      active_tasks: activeTasks(),
    });
  });
  router.get(GRAPH_ROUTE, async (_req, res) => {
    res.json(await describeGraph(registry.current));
  });
  return router;
}
