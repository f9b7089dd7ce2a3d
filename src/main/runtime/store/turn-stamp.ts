// Which turn wrote a checkpoint: the executor passes the A2A task id in the run's
// configurable (TURN_TASK_CONFIG_KEY, src/shared/thread-state.ts), and both savers copy it
// into the checkpoint's metadata, so the debugger can tell a session's runs apart in one
// thread's history (docs/playground-api.md, "The state at every step").
import type { RunnableConfig } from '@langchain/core/runnables';
import type { CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import { TURN_TASK_CONFIG_KEY } from '../../../shared/thread-state.ts';

export function stampTurn(config: RunnableConfig, metadata: CheckpointMetadata): CheckpointMetadata {
  const taskId: unknown = config.configurable?.[TURN_TASK_CONFIG_KEY];
  return typeof taskId === 'string' && taskId ? ({ ...metadata, [TURN_TASK_CONFIG_KEY]: taskId } as CheckpointMetadata) : metadata;
}
