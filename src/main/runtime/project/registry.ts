// The registry: the project's loaded components and the compiled graph, as one numbered
// generation. Invocations take the current generation when they start and keep it to the
// end, so a reload never changes a run in flight.
import { noteModelRequestsOnGlobalFetch, recordingFetch } from '../outbound/recording.ts';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import type { StateSnapshot } from '@langchain/langgraph';
import { loadProject, isGraphLike, ProjectLoadError, type Component, type LoadedProject } from './loader.ts';
import type { AgentContext, MemoryControls, McpToolHandle } from '../../../sdk/index.ts';
import { setDefaultFanoutConcurrency } from '../../../sdk/fanout.ts';
import { instrumentNodes } from './node-failures.ts';
import { instrumentSpans } from '../execution/node-spans.ts';
import { quotedNameLocation, unknownNodeEdges } from './graph-edges.ts';
import type { RuntimeSettings } from '../config.ts';
import type { ComponentChange as SharedComponentChange, ReloadOutcome } from '../../../shared/runtime-contract.ts';

/** The compiled graph as the executor uses it. */
export interface RunnableGraph {
  stream(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(config: Record<string, unknown>, options?: { subgraphs?: boolean }): Promise<StateSnapshot>;
  /** The thread's checkpoints, newest first (the debugger, debug/state.ts). */
  getStateHistory(
    config: Record<string, unknown>,
    options?: { limit?: number; before?: Record<string, unknown>; filter?: Record<string, unknown> },
  ): AsyncIterableIterator<StateSnapshot>;
  checkpointer?: BaseCheckpointSaver | boolean;
  /** The top graph's nodes by name (breakpoints match these, execution/breakpoints.ts). */
  nodes?: Record<string, unknown>;
  getGraphAsync(): Promise<{
    nodes: Record<string, { id: string; name?: string }>;
    edges: { source: string; target: string; conditional?: boolean; data?: unknown }[];
  }>;
}

export interface Generation {
  number: number;
  project: LoadedProject;
  graph: RunnableGraph;
  exitNode: string;
  /** Artifact-name constant exported by the graph module (`ARTIFACT_NAME`), if any. */
  adapterArtifactName?: string;
  loadedAt: string;
}

export interface MemoryConfig {
  enabled: boolean;
  backend: 'sqlite' | 'postgres';
  summarize: boolean;
  window_size: number;
  summarize_threshold: number;
}

export interface RegistryDeps {
  projectDir: string;
  settings: RuntimeSettings;
  /** Called once, after the first load has set up `memory` from the manifest. */
  checkpointer: () => BaseCheckpointSaver;
  /** Sets the starting memory configuration from the manifest (first load only). */
  initMemory: (manifest: LoadedProject['manifest']) => void;
  memory: MemoryConfig;
  mcpTools: () => Promise<McpToolHandle[]>;
  /** The outbound pool's fetch, given to the project as ctx.fetch. */
  fetch?: AgentContext['fetch'];
  /** Called after a reload installed a new generation (e.g. to reconnect MCP servers). */
  onInstall?: (gen: Generation, changed: ComponentChange[]) => Promise<void> | void;
}

/** The contract's ComponentChange, of one of this runtime's component kinds. */
export type ComponentChange = SharedComponentChange & { kind: Component['kind'] };

export class ReloadBusyError extends Error {}

export class Registry {
  private gen: Generation | null = null;
  private counter = 0;
  private reloading = false;
  /** Version per component key: 1 when first seen, +1 on each content change. */
  private readonly versions = new Map<string, number>();

  constructor(private readonly deps: RegistryDeps) {
    setDefaultFanoutConcurrency(deps.settings.fanoutMaxConcurrency);
  }

  private saver: BaseCheckpointSaver | null = null;

  get checkpointer(): BaseCheckpointSaver {
    if (!this.saver) throw new Error('registry not loaded');
    return this.saver;
  }

  get current(): Generation {
    if (!this.gen) throw new Error('registry not loaded');
    return this.gen;
  }

  get loaded(): boolean {
    return this.gen !== null;
  }

  /** Loads the project and compiles the graph; throws ProjectLoadError with diagnostics. */
  async build(): Promise<Generation> {
    const project = await loadProject(this.deps.projectDir);
    if (!this.saver) {
      // Whether memory is enabled decides the checkpointer, so the first manifest sets both.
      this.deps.initMemory(project.manifest);
      this.saver = this.deps.checkpointer();
    }
    const memory = this.deps.memory;
    const controls: MemoryControls = {
      get enabled() {
        return memory.enabled;
      },
      get windowSize() {
        return memory.window_size;
      },
      get summarize() {
        return memory.summarize;
      },
      get summarizeThreshold() {
        return memory.summarize_threshold;
      },
    };
    noteModelRequestsOnGlobalFetch(); // a client that ignores ctx.fetch (Gemini's) still shows its request
    const ctx: AgentContext = {
      projectDir: project.dir,
      env: this.deps.settings.env,
      model: project.manifest.model,
      errors: project.errors,
      memory: controls,
      prompts: project.prompts,
      mcpTools: this.deps.mcpTools,
      // ctx.fetch (and the model clients, callAgent) records and replays (D-92).
      ...(this.deps.fetch ? { fetch: recordingFetch(this.deps.fetch) } : {}),
    };
    const entry = project.manifest.graph.entry;
    let builder: unknown = project.graphExport;
    try {
      if (typeof builder === 'function') builder = await (builder as (c: AgentContext) => unknown)(ctx);
    } catch (err) {
      throw new ProjectLoadError([{ file: entry, field: 'graph.export', message: `the graph factory threw: ${(err as Error).message}` }]);
    }
    if (!isGraphLike(builder)) {
      throw new ProjectLoadError([{ file: entry, field: 'graph.export', message: 'the graph factory must return an uncompiled StateGraph' }]);
    }
    const unknownNodes = unknownNodeEdges(builder);
    if (unknownNodes.length) {
      const sources = [entry, ...project.components.filter((c) => c.kind === 'module').map((c) => c.file)];
      throw new ProjectLoadError(unknownNodes.map((u) => ({ ...(quotedNameLocation(project.dir, sources, u.name) ?? { file: entry }), message: u.message })));
    }
    let graph: RunnableGraph;
    try {
      instrumentNodes(builder); // a node's failure names the node (node-failures.ts)
      graph = builder.compile({ checkpointer: this.saver }) as RunnableGraph;
      instrumentSpans(graph); // node spans from the nodes themselves (execution/node-spans.ts)
    } catch (err) {
      throw new ProjectLoadError([{ file: entry, message: `the graph does not compile: ${(err as Error).message}` }]);
    }
    const drawn = await graph.getGraphAsync();
    const nodeIds = Object.keys(drawn.nodes).filter((id) => id !== '__start__' && id !== '__end__');
    let exitNode = project.manifest.graph.exitNode;
    if (exitNode && !nodeIds.includes(exitNode)) {
      throw new ProjectLoadError([
        { file: 'agent.json', field: 'graph.exitNode', message: `exit node '${exitNode}' is not a node of the graph (nodes: ${nodeIds.join(', ')})` },
      ]);
    }
    if (!exitNode) {
      const toEnd = [...new Set(drawn.edges.filter((e) => e.target === '__end__').map((e) => e.source))];
      if (toEnd.length !== 1) {
        throw new ProjectLoadError([
          {
            file: 'agent.json',
            field: 'graph.exitNode',
            message: `cannot tell the exit node (nodes with an edge to END: ${toEnd.join(', ') || 'none'}); set graph.exitNode`,
          },
        ]);
      }
      exitNode = toEnd[0];
    }
    return {
      number: 0,
      project,
      graph,
      exitNode,
      adapterArtifactName: project.adapterArtifactName,
      loadedAt: new Date().toISOString(),
    };
  }

  /** Installs a built generation and numbers it. */
  install(gen: Generation): Generation {
    this.counter += 1;
    gen.number = this.counter;
    const previous = new Map((this.gen?.project.components ?? []).map((c) => [componentKey(c), c.hash]));
    for (const c of gen.project.components) {
      const key = componentKey(c);
      const before = previous.get(key);
      if (!this.versions.has(key)) this.versions.set(key, 1);
      else if (before !== c.hash) this.versions.set(key, (this.versions.get(key) ?? 0) + 1);
    }
    this.gen = gen;
    return gen;
  }

  componentVersion(c: Component): number {
    return this.versions.get(componentKey(c)) ?? 1;
  }

  /** Re-reads the project; installs a new generation only when a component changed. A
   * build that fails validation throws ProjectLoadError and the old generation keeps serving. */
  async reload(): Promise<ReloadOutcome> {
    if (this.reloading) throw new ReloadBusyError('a reload is already in progress');
    this.reloading = true;
    try {
      const current = this.current;
      const next = await this.build();
      const changed = diffComponents(current.project.components, next.project.components);
      if (changed.length === 0) return { reloaded: false, generation: current.number, previous_generation: current.number, changed };
      this.install(next);
      await this.deps.onInstall?.(next, changed);
      return { reloaded: true, generation: next.number, previous_generation: current.number, changed };
    } finally {
      this.reloading = false;
    }
  }

  async load(): Promise<Generation> {
    return this.install(await this.build());
  }
}

export function componentKey(c: Component): string {
  return `${c.kind}:${c.name}`;
}

export function diffComponents(before: Component[], after: Component[]): ComponentChange[] {
  const a = new Map(before.map((c) => [componentKey(c), c]));
  const b = new Map(after.map((c) => [componentKey(c), c]));
  const out: ComponentChange[] = [];
  for (const [key, c] of b) {
    const old = a.get(key);
    if (!old) out.push({ kind: c.kind, name: c.name, file: c.file, change: 'added', previous_hash: null, hash: c.hash });
    else if (old.hash !== c.hash) out.push({ kind: c.kind, name: c.name, file: c.file, change: 'modified', previous_hash: old.hash, hash: c.hash });
  }
  for (const [key, c] of a) if (!b.has(key)) out.push({ kind: c.kind, name: c.name, file: c.file, change: 'removed', previous_hash: c.hash, hash: null });
  return out;
}
