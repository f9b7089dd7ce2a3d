// The probes (docs/deployment.md, "Shutdown and health"), public like the card:
//   GET /healthz (spec 4.1/4.2: ready when the store answers and the project is loaded; 503
//     while draining too),
//   GET /livez (liveness: the process answers; never touches the store, so a database blip
//     does not make an orchestrator restart every replica),
//   GET /readyz (readiness: store reachable, migrations applied, project loaded, not
//     draining; the JSON body names the failing check),
// and GET /graph (the loaded graph's nodes and edges, project/graph-view.ts).
import express from 'express';
import type { Registry } from '../project/registry.ts';
import type { MemoryStore } from '../store/types.ts';
import { describeGraph } from '../project/graph-view.ts';
import { StoreUnavailableError } from '../store/unavailable.ts';
import { GRAPH_ROUTE, HEALTH_ROUTE, LIVENESS_ROUTE, READINESS_ROUTE } from '../../../shared/runtime-contract.ts';

/** A store that does not answer within this is not ready (Kubernetes' probe timeout is 1 s by default). */
export const STORE_PING_TIMEOUT_MS = 1000;

export interface ProbeDeps {
  store: Pick<MemoryStore, 'ping' | 'backend'>;
  registry: Pick<Registry, 'loaded' | 'current'>;
  /** Invocations running in this process now. */
  activeTasks: () => number;
  /** Why the runtime is draining (http/drain.ts), or null. */
  draining: () => string | null;
}

type Check = { ok: true } | { ok: false; reason: string };

/** The store answers a trivial query within STORE_PING_TIMEOUT_MS. */
async function storeCheck(store: ProbeDeps['store']): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STORE_PING_TIMEOUT_MS} ms`)), STORE_PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([store.ping(), timeout]);
    return { ok: true };
  } catch (err) {
    // The outage's detail names no address or file (store/unavailable.ts): the probes are public.
    return { ok: false, reason: `store not reachable: ${err instanceof StoreUnavailableError ? err.detail : (err as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
}

/** Readiness checks in order; the first failing one is the answer's `failing`. */
async function readiness({ store, registry, draining }: ProbeDeps): Promise<Record<string, Check>> {
  const drain = draining();
  return {
    draining: drain ? { ok: false, reason: drain } : { ok: true },
    project: registry.loaded ? { ok: true } : { ok: false, reason: 'project not loaded' },
    store: await storeCheck(store),
    // The store is opened, its migrations applied, before the runtime listens (a store that
    // needs other migrations is a start error), so a serving runtime has them.
    migrations: { ok: true },
  };
}

export function probeRouter(deps: ProbeDeps): express.Router {
  const { store, registry, activeTasks, draining } = deps;
  const router = express.Router();
  router.get(LIVENESS_ROUTE, (_req, res) => {
    res.json({ status: 'alive', pid: process.pid, uptime_s: Math.round(process.uptime()) });
  });
  router.get(READINESS_ROUTE, async (_req, res) => {
    const checks = await readiness(deps);
    const failing = Object.entries(checks).find(([, c]) => !c.ok);
    const body = {
      status: failing ? 'not_ready' : 'ready',
      ...(failing ? { failing: failing[0], reason: (failing[1] as { reason: string }).reason } : {}),
      checks,
    };
    res.status(failing ? 503 : 200).json(body);
  });
  router.get(HEALTH_ROUTE, async (_req, res) => {
    const drain = draining();
    if (drain) {
      res.status(503).json({ status: 'unavailable', reason: drain });
      return;
    }
    const s = await storeCheck(store);
    if (!s.ok) {
      res.status(503).json({ status: 'unavailable', reason: s.reason });
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
