// The debugger's router as the composition root mounts it: the state reader and the forker
// over the loaded graph, its checkpointer and the memory store (docs/playground-api.md).
import type express from 'express';
import type { Logger } from 'pino';
import type { Registry } from '../project/registry.ts';
import type { MemoryStore } from '../store/types.ts';
import { ThreadForker, type ForkGraph } from './fork.ts';
import { ThreadEditor } from './edit.ts';
import { debugRouter } from './routes.ts';
import type { ModelCallDeps } from './model-call.ts';
import { EditChecker } from './state-schema.ts';
import { ThreadStateReader } from './state.ts';

export function debugRoutes(
  settings: { controlToken: string | null; agentId: string; env: Record<string, string> },
  registry: Registry,
  store: MemoryStore,
  log: Logger,
  fetch: ModelCallDeps['fetch'],
): express.Router {
  const reader = new ThreadStateReader(() => registry.current.graph);
  const graph = () => registry.current.graph as unknown as ForkGraph;
  const checker = new EditChecker();
  const forker = new ThreadForker({ agentId: settings.agentId, graph, saver: () => registry.checkpointer, reader, checker, store });
  const editor = new ThreadEditor({ graph, reader, checker });
  return debugRouter({
    controlToken: settings.controlToken,
    reader,
    forker,
    editor,
    schema: () => checker.schemaOf(graph()),
    modelCall: { env: settings.env, model: () => registry.current.project.manifest.model, fetch },
    log,
  });
}
