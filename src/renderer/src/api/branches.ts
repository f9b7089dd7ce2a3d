// Conversation branches (docs/playground-api.md, "Conversation branches"): a session's details
// (whether it is a branch, and of which root) and POST /runs/{id}/branch.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { RunAcceptedSchema, SessionSchema } from '../../../shared/playground.ts';
import type { InputPart } from '../../../shared/playground-requests.ts';
import { api } from './client.ts';
import { invalidateRunLists, keys } from './queries.ts';

/** One session; a branch names its root (the sidebar lists the root, with the branch under it). */
export function useSession(sessionId: string | null) {
  return useQuery({
    queryKey: [...keys.sessions, 'one', sessionId ?? '-'],
    enabled: sessionId !== null,
    staleTime: 60_000,
    queryFn: ({ signal }) => api(`/sessions/${encodeURIComponent(sessionId!)}`, SessionSchema, { signal }),
  });
}

/** The root session of the open one: itself unless it is a branch. */
export function useRootSessionId(sessionId: string | null): string | null {
  const q = useSession(sessionId);
  return q.data?.branch_of?.root_session_id ?? sessionId;
}

/** POST /runs/{id}/branch: the run's user turn, edited, continues in a new session. */
export function useBranchRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ runId, parts }: { runId: string; parts: InputPart[] }) =>
      api(`/runs/${encodeURIComponent(runId)}/branch`, RunAcceptedSchema, { method: 'POST', body: { parts } }),
    onSettled: () => invalidateRunLists(qc),
  });
}
