// Marks on a session in the sidebar: its run count, "imported" for a session that came in a
// bundle, and the number of conversation branches grouped under it.
import type { Session } from '../../../shared/playground.ts';
import { useRuns } from '../api/queries.ts';
import { formatDateTime } from '../lib/format.ts';

/** A session's run count. For the open session it is read from the run list shown below it,
 * the same cached query, so the count and the list change in the same frame ("1 run" beside
 * "No runs yet" cannot happen while one of two queries is still refetching); a list with
 * older pages still to load counts at least what the session says. */
export function RunCount({ session, selected }: { session: Session; selected: boolean }) {
  const runs = useRuns(selected ? session.session_id : null);
  const n = selected && runs.isSuccess ? (runs.hasNextPage ? Math.max(runs.data.length, session.run_count) : runs.data.length) : session.run_count;
  return (
    <span data-testid="session-run-count" data-count={n}>
      {n} {n === 1 ? 'run' : 'runs'}
    </span>
  );
}

/** The mark of a session that came in a bundle (docs/studio-ui.md, Bundles). */
export function ImportedMark({ session }: { session: Session }) {
  if (!session.imported_at) return null;
  const from = session.imported_project ? ` from ${session.imported_project}` : '';
  return (
    <span className="pill pill--added session__imported" data-testid="session-imported" title={`Imported${from} on ${formatDateTime(session.imported_at)}`}>
      imported
    </span>
  );
}

/** The branches grouped under a root session (docs/studio-ui.md, "Conversation branches"):
 * the transcript's switchers move between them. */
export function BranchMark({ session }: { session: Session }) {
  const n = session.branch_count ?? 0;
  if (!n) return null;
  return (
    <span
      className="pill pill--changed"
      data-testid="session-branches"
      data-count={n}
      title="Branches of this conversation: switch between them in the conversation view"
    >
      {n} {n === 1 ? 'branch' : 'branches'}
    </span>
  );
}
