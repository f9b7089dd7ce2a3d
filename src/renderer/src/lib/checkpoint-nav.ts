// Which checkpoint a span or a graph node stands for (docs/studio-ui.md, "The state at a
// step"): a node's step writes one checkpoint, whose `writes` name the node; the k-th time a
// node runs in a run is the k-th of the run's checkpoints it wrote. A fan-out branch
// (`skills[refund]`) writes in its node's step (`skills`). The state before a node is the
// checkpoint whose `next` names it (a run paused before the node has only that one), else the
// parent of the checkpoint it wrote.
import type { SessionCheckpoint } from '../../../shared/thread-state.ts';

/** `skills[refund]` -> `skills`. */
export const baseNode = (node: string): string => node.replace(/\[.*\]$/, '');

/** The `occurrence`-th (0-based) checkpoint of the run that `node` wrote, or null. */
export function checkpointAfter(list: readonly SessionCheckpoint[], node: string, occurrence = 0): SessionCheckpoint | null {
  const base = baseNode(node);
  return list.filter((c) => base in c.writes)[occurrence] ?? null;
}

/** The checkpoint just before `node` ran (its `occurrence`-th time), as an id (it may be the
 * previous run's), or null. */
export function checkpointBefore(list: readonly SessionCheckpoint[], node: string, occurrence = 0): string | null {
  const base = baseNode(node);
  const waiting = list.filter((c) => c.next.includes(base))[occurrence];
  if (waiting) return waiting.checkpoint_id;
  return checkpointAfter(list, node, occurrence)?.parent_checkpoint_id ?? null;
}

/** Which time (0-based) the span at `index` of the run's rows is of its node: top-level node
 * spans count; a branch belongs to the last span of its node before it. */
export function occurrenceOf(rows: readonly { node: string; kind: string }[], index: number): number {
  const row = rows[index];
  if (!row) return 0;
  const base = baseNode(row.node);
  const upTo = row.kind === 'branch' ? index : index + 1;
  return Math.max(0, rows.slice(0, upTo).filter((r) => r.kind === 'node' && r.node === base).length - 1);
}

/** A checkpoint as a line of the thread's history: what wrote it. */
export function writtenBy(c: Pick<SessionCheckpoint, 'source' | 'writes' | 'step'>): string {
  if (c.source === 'input') return 'Input';
  if (c.source === 'fork') return 'Forked here';
  const nodes = Object.keys(c.writes);
  if (nodes.length === 1 && nodes[0] === '__start__') return 'Input applied';
  return nodes.length ? `After ${nodes.join(', ')}` : `Step ${c.step}`;
}
