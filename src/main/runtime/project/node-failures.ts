// Which node failed, and where in the project's source. The registry wraps each node's
// function (instrumentNodes) so an error it throws is tagged with the node's name and task
// id before LangGraph rethrows it (its span ends failed from the node's own wrapper,
// execution/node-spans.ts); the stack's
// first frame inside the project gives file:line:column (TypeScript source positions: tsx
// loads the project with source maps).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getConfig, isGraphBubbleUp } from '@langchain/langgraph';
import { isSendTask, sendTask } from '../execution/send-gates.ts';

export interface SourcePosition {
  /** Project-relative path, with forward slashes. */
  file: string;
  line: number;
  column: number;
}

export interface NodeFailure {
  node: string;
  taskId: string | undefined;
  /** The node's run was cancelled (its signal aborted) rather than failing on its own. */
  aborted: boolean;
}

const failures = new WeakMap<object, NodeFailure>();
const WRAPPED = Symbol.for('agent-studio.node-wrapped');

/** The node a thrown error came from, when a wrapped node threw it. */
export function failureOf(err: unknown): NodeFailure | undefined {
  return err && typeof err === 'object' ? failures.get(err) : undefined;
}

/** The task id of the node running now: LangGraph names it in the task's checkpoint namespace. */
export function currentTaskId(): string | undefined {
  try {
    const ns = getConfig()?.metadata?.langgraph_checkpoint_ns;
    return typeof ns === 'string' ? ns.split('|').pop()?.split(':').pop() : undefined;
  } catch {
    return undefined; // not inside a graph run
  }
}

interface NodeSpecLike {
  runnable?: { func?: (...args: unknown[]) => unknown; [WRAPPED]?: boolean };
}

/** Wraps every node function of an uncompiled StateGraph. Relies on LangGraph's node spec
 * (`nodes[name].runnable.func`); a node of another shape is left as it is (its failure is
 * still reported, only without the node's name). */
export function instrumentNodes(builder: unknown): void {
  const nodes = (builder as { nodes?: Record<string, NodeSpecLike> }).nodes;
  if (!nodes || typeof nodes !== 'object') return;
  for (const [name, spec] of Object.entries(nodes)) {
    const runnable = spec?.runnable;
    if (!runnable || typeof runnable.func !== 'function' || runnable[WRAPPED]) continue;
    const original = runnable.func;
    const fail = (err: unknown): never => {
      if (err && typeof err === 'object' && !isGraphBubbleUp(err) && !failures.has(err)) {
        let config: ReturnType<typeof getConfig> | undefined;
        try {
          config = getConfig();
        } catch {
          config = undefined;
        }
        failures.set(err, { node: name, taskId: currentTaskId(), aborted: config?.signal?.aborted === true });
      }
      throw err;
    };
    runnable.func = function (this: unknown, ...args: unknown[]) {
      try {
        // A task started by a Send is a fan-out branch: named and gated first (send-gates.ts).
        const config = args[1] as Parameters<typeof sendTask>[1];
        const out = isSendTask(config) ? sendTask(name, config, () => original.apply(this, args)) : original.apply(this, args);
        return out instanceof Promise ? out.catch(fail) : out;
      } catch (err) {
        return fail(err);
      }
    };
    runnable[WRAPPED] = true;
  }
}

/** The first frame of `err`'s stack inside the project (not under node_modules). */
export function sourceOf(err: unknown, projectDir: string): SourcePosition | undefined {
  const stack = (err as { stack?: unknown } | null)?.stack;
  if (typeof stack !== 'string') return undefined;
  const root = path.resolve(projectDir) + path.sep;
  for (const line of stack.split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    let file = m[1].replace(/\?[^:]*$/, ''); // the generation query of a reloaded module
    if (file.startsWith('file://')) {
      try {
        file = fileURLToPath(file);
      } catch {
        continue;
      }
    }
    if (!file.startsWith(root) || file.includes(`${path.sep}node_modules${path.sep}`)) continue;
    return { file: path.relative(root, file).split(path.sep).join('/'), line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}
