// The thread's transcript on PostgreSQL (spec 2.3): messages under keys `transcript:NNNNNNNNNNNN`
// of persistent_memory, numbered in the order they were appended. A turn's messages go with the
// turn's end (end-batch.ts, D-84), numbered in that statement from the thread's last key; two
// replicas appending to one thread at once collide on a key, and the batch then writes each
// append alone on the path below, which serialises appends to a thread under an advisory lock.
import type pg from 'pg';
import type { TranscriptMessage } from '../types.ts';
import { claimThread } from './checkpointer.ts';

export async function appendTranscriptAlone(c: pg.PoolClient, s: string, agentId: string, threadId: string, messages: TranscriptMessage[]): Promise<void> {
  await claimThread(c, s, threadId, agentId);
  // Serialises appends to one thread across replicas (the sequence is read, then written).
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`transcript:${threadId}`]);
  const last = (
    await c.query<{ k: string | null }>(
      `SELECT max(key) AS k FROM ${s}.persistent_memory WHERE agent_id = $1 AND thread_id = $2 AND key >= 'transcript:' AND key < 'transcript;'`,
      [agentId, threadId],
    )
  ).rows[0]?.k;
  let seq = last ? Number(last.slice('transcript:'.length)) : 0;
  const keys: string[] = [];
  const values: string[] = [];
  for (const m of messages) {
    seq += 1;
    keys.push(`transcript:${String(seq).padStart(12, '0')}`);
    values.push(JSON.stringify(m));
  }
  await c.query(
    `INSERT INTO ${s}.persistent_memory (agent_id, thread_id, key, value, updated_at)
     SELECT $1, $2, k, v, now() FROM unnest($3::text[], $4::text[]) AS x(k, v)`,
    [agentId, threadId, keys, values],
  );
}

/** The head of a warm message's thread, with its waiting task (thread-cache.ts, D-85). */
export const HEAD_SQL = (s: string) => `SELECT
    (SELECT a.task_id FROM ${s}.a2a_tasks a WHERE a.context_id = $2 AND a.state = 'input-required' AND th.agent_id = $1 ORDER BY a.updated_at DESC LIMIT 1) AS task_id,
    th.agent_id AS owner,
    (SELECT cp.checkpoint_id FROM ${s}.checkpoints cp WHERE cp.thread_id = $2 AND cp.checkpoint_ns = '' ORDER BY cp.checkpoint_id DESC LIMIT 1) AS checkpoint_id,
    (SELECT pm.value FROM ${s}.persistent_memory pm WHERE pm.agent_id = th.agent_id AND pm.thread_id = $2 AND pm.key = 'summary') AS summary
  FROM (SELECT $2::text AS thread_id) x LEFT JOIN ${s}.threads th ON th.thread_id = x.thread_id`;
