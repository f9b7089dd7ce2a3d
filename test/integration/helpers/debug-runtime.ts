// A runtime as a studio's child sees it, on PostgreSQL: its own schema (dropped after the
// suite), the control token `tok` that the debugger's endpoints and reserved keys answer to,
// and a checkpoint after every step. For describe blocks: call at their top level.
import { afterAll, beforeAll } from 'vitest';
import { dropSchema, newSchema, TEST_DSN } from './postgres.ts';
import { startTestRuntime, type TestRuntime } from './runtime.ts';

const DEBUG_TOKEN = 'tok';

export function usePostgresDebugRuntime(prefix: string): () => TestRuntime {
  const schema = newSchema(prefix);
  let rt: TestRuntime | undefined;
  beforeAll(async () => {
    rt = await startTestRuntime({
      env: { POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema, RUNTIME_CONTROL_TOKEN: DEBUG_TOKEN, CHECKPOINT_DURABILITY: 'sync' },
    });
  });
  afterAll(async () => {
    await rt?.close();
    await dropSchema(schema);
  });
  return () => rt!;
}
