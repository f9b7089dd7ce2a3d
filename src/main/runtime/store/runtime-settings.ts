// Runtime settings in the memory store (table runtime_settings; docs/management-api.md,
// "Runtime settings"): what the management API changed at run time (the card URL, memory
// settings), per agent, one row per setting, so every replica on the store applies the same
// values and a restart keeps them. Values are JSON.
import type Database from 'better-sqlite3';
import type { WriteBatch } from './write-batch.ts';

export interface RuntimeSettingsStore {
  /** Every stored setting of the agent, by key. */
  read(agentId: string): Promise<Record<string, unknown>>;
  /** Stores `values` (key -> JSON value) for the agent in one transaction; `replica` is who changed them. */
  write(agentId: string, values: Record<string, unknown>, replica: string): Promise<void>;
}

/** A stored value that does not parse reads as absent (the setting's other sources apply). */
export function decodeSettings(rows: { key: string; value: string }[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    try {
      out[r.key] = JSON.parse(r.value);
    } catch {
      // ignored: see above
    }
  }
  return out;
}

export function sqliteRuntimeSettings(db: Database.Database, writes: WriteBatch): RuntimeSettingsStore {
  const read = db.prepare('SELECT key, value FROM runtime_settings WHERE agent_id = ?');
  const put = db.prepare(
    `INSERT INTO runtime_settings (agent_id, key, value, updated_at, updated_by) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (agent_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
  );
  return {
    read: async (agentId) => decodeSettings(read.all(agentId) as { key: string; value: string }[]),
    write: async (agentId, values, replica) => {
      const now = new Date().toISOString();
      const rows = Object.entries(values).map(([k, v]) => [agentId, k, JSON.stringify(v), now, replica]);
      await writes.run(() => {
        for (const row of rows) put.run(...row);
      });
    },
  };
}
