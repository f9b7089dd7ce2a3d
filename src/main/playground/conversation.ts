// A session's conversation (GET /sessions/{id}/transcript) with its branches
// (docs/playground-api.md, "Conversation branches"): a branch's transcript begins with the turns
// it shares with the session it was branched from, up to the edited turn, then its own; a turn
// that has branches lists its versions (the original first, then its branches oldest first).
import type { Page, TranscriptTurn } from '../../shared/playground.ts';
import type { PlaygroundStore, TranscriptSegment } from './store/store.ts';

/** A chain of branches longer than this is cut there (a guard; branches never form a cycle). */
const MAX_DEPTH = 1000;

/** The segments of a session's conversation, oldest first. */
export function segmentsOf(store: PlaygroundStore, sessionId: string): TranscriptSegment[] {
  const segments: TranscriptSegment[] = [{ session_id: sessionId, before: null }];
  let branch = store.branches.of(sessionId);
  while (branch && segments.length < MAX_DEPTH) {
    segments.unshift({ session_id: branch.origin_session_id, before: branch.origin_run_id });
    branch = store.branches.of(branch.origin_session_id);
  }
  return segments;
}

/** The turn a run is a version of: a branch's first run is a version of the turn it edited;
 * any other run is its own. */
export function versionGroup(store: PlaygroundStore, sessionId: string, runId: string): { session_id: string; run_id: string } {
  const branch = store.branches.of(sessionId);
  if (branch && store.branches.firstRun(sessionId) === runId) return { session_id: branch.origin_session_id, run_id: branch.origin_run_id };
  return { session_id: sessionId, run_id: runId };
}

export function conversation(store: PlaygroundStore, sessionId: string, after: string | null, limit: number): Page<TranscriptTurn> {
  const p = store.transcriptOf(segmentsOf(store, sessionId), after, limit);
  for (const turn of p.items) {
    const group = versionGroup(store, turn.session_id ?? sessionId, turn.run_id);
    const branches = store.branches.ofRun(group.run_id).filter((b): b is { session_id: string; run_id: string } => b.run_id !== null);
    if (branches.length) turn.versions = [group, ...branches];
  }
  return p;
}
