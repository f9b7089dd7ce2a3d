// Runtime settings on PostgreSQL (migration 5; the SQLite twin and the contract are in
// ../runtime-settings.ts).
import type pg from 'pg';
import { decodeSettings, type RuntimeSettingsStore } from '../runtime-settings.ts';

/** `s`: the quoted schema. */
export function pgRuntimeSettings(pool: pg.Pool, s: string): RuntimeSettingsStore {
  return {
    read: async (agentId) =>
      decodeSettings((await pool.query<{ key: string; value: string }>(`SELECT key, value FROM ${s}.runtime_settings WHERE agent_id = $1`, [agentId])).rows),
    write: async (agentId, values, replica) => {
      const entries = Object.entries(values);
      if (entries.length === 0) return;
      // One statement: every value of a change lands together.
      await pool.query(
        `INSERT INTO ${s}.runtime_settings (agent_id, key, value, updated_at, updated_by)
         SELECT $1, k, v, now(), $4 FROM unnest($2::text[], $3::text[]) AS t(k, v)
         ON CONFLICT (agent_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
        [agentId, entries.map(([k]) => k), entries.map(([, v]) => JSON.stringify(v)), replica],
      );
    },
  };
}
