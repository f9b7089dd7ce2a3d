// What an agent project imports: `import { ... } from 'agent-studio/sdk'`.
// The runtime passes an AgentContext to the project's graph factory.
import type { ErrorRaiser } from './errors.ts';
import type { ModelSettings } from './model.ts';

export * from './errors.ts';
export * from './state.ts';
export * from './fanout.ts';
export * from './model.ts';
export { modelUsage, type CacheStats } from './usage.ts';
export { callAgent, childContextId, type AgentCallResult, type CallAgentOptions } from './agent-call.ts';
export { ScriptedChatModel, splitIntoChunks, type ScriptedResponder, type ScriptedModelOptions } from './scripted-model.ts';

/** Memory settings the operator can change at runtime (spec 2.3); read them per call. */
export interface MemoryControls {
  readonly enabled: boolean;
  /** Number of most recent messages to pass to the model. */
  readonly windowSize: number;
  readonly summarize: boolean;
  readonly summarizeThreshold: number;
}

/** An MCP tool the graph can call (spec 4.2 status.mcp). */
export interface McpToolHandle {
  server: string;
  name: string;
  description?: string;
  call(args: Record<string, unknown>): Promise<unknown>;
}

export interface AgentContext {
  projectDir: string;
  /** Merged environment: the project's .env, overridden by the process environment. */
  env: Record<string, string>;
  model: ModelSettings;
  errors: ErrorRaiser;
  memory: MemoryControls;
  prompts: Record<string, string>;
  /** Tools of the project's MCP servers. */
  mcpTools(): Promise<McpToolHandle[]>;
  /** fetch through the runtime's one outbound connection pool (spec 8): the model client,
   * MCP and calls to other agents use it too. Absent outside the runtime (plain fetch then). */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}
