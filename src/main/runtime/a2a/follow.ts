// Following a task that runs in another process, for tasks/resubscribe (replicas.ts;
// docs/deployment.md, "Replicas"). The shared task row is the source of truth:
//   - followStored: with no live channel (no cluster control; `--workers` on one SQLite
//     file), the row is read every FOLLOW_POLL_MS and each change becomes the A2A event a
//     local subscriber would have had: new artifact parts (append), a replaced artifact, a
//     status change. The stream ends with the settling status (final: true).
//   - untilSettled: with cluster control the running replica streams its events through NATS;
//     if that replica dies the stream would wait for ever, so the row is watched too: once it
//     is settled (the reaper failed it, replica_lost) and the live stream has not ended within
//     SETTLE_GRACE_MS, the row's status is sent as the final event and the stream ends.
import type { Artifact, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent } from '@a2a-js/sdk';

type FollowEvent = Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

/** How often a follower reads the task row. */
export const FOLLOW_POLL_MS = 200;
/** How long a live stream may lag behind a settled row before the row's status ends it. */
export const SETTLE_GRACE_MS = 1_000;

/** States after which nothing more happens without the client (final: true). */
const SETTLED: ReadonlySet<TaskState> = new Set<TaskState>(['completed', 'failed', 'canceled', 'rejected', 'input-required', 'auth-required']);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function statusEvent(task: Task): TaskStatusUpdateEvent {
  return { kind: 'status-update', taskId: task.id, contextId: task.contextId, status: task.status, final: SETTLED.has(task.status.state) };
}

function artifactEvent(task: Task, artifact: Artifact, append: boolean): TaskArtifactUpdateEvent {
  return { kind: 'artifact-update', taskId: task.id, contextId: task.contextId, artifact, append };
}

/** The events that take a subscriber who saw `before` to `after`. */
export function changes(before: Task, after: Task): FollowEvent[] {
  const out: FollowEvent[] = [];
  const seen = new Map((before.artifacts ?? []).map((a) => [a.artifactId, a]));
  for (const a of after.artifacts ?? []) {
    const old = seen.get(a.artifactId);
    if (!old) {
      out.push(artifactEvent(after, a, false));
      continue;
    }
    const grown = a.parts.length >= old.parts.length && JSON.stringify(a.parts.slice(0, old.parts.length)) === JSON.stringify(old.parts);
    if (grown && a.parts.length === old.parts.length) continue;
    out.push(grown ? artifactEvent(after, { ...a, parts: a.parts.slice(old.parts.length) }, true) : artifactEvent(after, a, false));
  }
  if (JSON.stringify(before.status) !== JSON.stringify(after.status)) out.push(statusEvent(after));
  return out;
}

/** The task's snapshot, then its changes as read from the row, until it settles. */
export async function* followStored(load: () => Promise<Task | undefined>, first: Task, pollMs = FOLLOW_POLL_MS): AsyncGenerator<FollowEvent> {
  yield first;
  let seen = first;
  while (!SETTLED.has(seen.status.state)) {
    await sleep(pollMs);
    const now = await load();
    if (!now) return;
    yield* changes(seen, now);
    seen = now;
  }
}

/** `events` (a live stream from the running replica) until it ends, or until the task's row
 * is settled and the stream has not ended within `graceMs`: then the row's status ends it. */
export async function* untilSettled(
  events: AsyncIterator<unknown>,
  load: () => Promise<Task | undefined>,
  o: { pollMs?: number; graceMs?: number } = {},
): AsyncGenerator<FollowEvent> {
  const pollMs = o.pollMs ?? FOLLOW_POLL_MS;
  const graceMs = o.graceMs ?? SETTLE_GRACE_MS;
  let next = events.next();
  let settledSince: number | null = null;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const tick = new Promise<null>((r) => (timer = setTimeout(() => r(null), pollMs)));
    const got = await Promise.race([next, tick]);
    clearTimeout(timer);
    if (got) {
      if (got.done) return;
      next = events.next();
      const event = got.value as FollowEvent;
      yield event;
      if (event.kind === 'status-update' && event.final) return;
      continue;
    }
    const task = await load();
    if (!task || !SETTLED.has(task.status.state)) continue;
    settledSince ??= Date.now();
    if (Date.now() - settledSince < graceMs) continue;
    yield statusEvent(task);
    return;
  }
}
