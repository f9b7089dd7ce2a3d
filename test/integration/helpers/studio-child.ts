// The studio's runtime child on either checkpoint store: its SQLite file (the default), or a
// PostgreSQL schema of its own (dropped after the suite). For describe blocks: call at their
// top level.
import { afterAll, expect } from 'vitest';
import { defaultRuntimeCommand, type RuntimeCommand } from '../../../src/main/studio/child/command.ts';
import { dropSchema, newSchema, sql, TEST_DSN } from './postgres.ts';

export const STORES = ['SQLite', 'PostgreSQL'] as const;
export type Store = (typeof STORES)[number];

export function childOn(store: Store, prefix: string): { runtimeCommand?: RuntimeCommand; schema?: string } {
  if (store === 'SQLite') return {};
  const schema = newSchema(prefix);
  afterAll(() => dropSchema(schema));
  return { schema, runtimeCommand: (ctx) => ({ ...defaultRuntimeCommand(ctx), env: { POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema } }) };
}

/** The thread's checkpoints are in the child's PostgreSQL schema (not in a SQLite file). */
export async function expectCheckpointsInSchema(schema: string | undefined, thread: string | null): Promise<void> {
  if (!schema) return;
  const rows = await sql<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".checkpoints WHERE thread_id = $1`, [thread]);
  expect(Number(rows[0]!.n)).toBeGreaterThan(0);
}
