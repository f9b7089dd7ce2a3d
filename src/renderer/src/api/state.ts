// The debugger's reads (docs/playground-api.md, "The state at every step"): a run's
// checkpoints and one checkpoint's state, each reply read with its shared schema.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { SessionCheckpointDetailSchema, SessionCheckpointPageSchema, SessionCheckpointSchema, StateSchemaSchema } from '../../../shared/thread-state.ts';
import type { BreakpointAction } from '../../../shared/breakpoints.ts';
import { RunAcceptedSchema } from '../../../shared/playground.ts';
import { api } from './client.ts';
import { invalidateRunLists, keys } from './queries.ts';

const RunCheckpointsSchema = z.object({ items: z.array(SessionCheckpointSchema) });

export const stateKeys = {
  runCheckpoints: (runId: string) => ['run-checkpoints', runId] as const,
  checkpoint: (sessionId: string, checkpointId: string, ns: string) => ['checkpoint', sessionId, checkpointId, ns] as const,
  thread: (sessionId: string) => ['thread-checkpoints', sessionId] as const,
  schema: ['state-schema'] as const,
};

/** Checkpoints a page of the thread's history asks for. */
export const THREAD_PAGE = 50;

/** Every checkpoint of the session's thread (all its runs), newest first, a page at a time
 * (`fetchNextPage` follows `next_cursor`). */
export function useThreadCheckpoints(sessionId: string) {
  return useInfiniteQuery({
    queryKey: stateKeys.thread(sessionId),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      api(
        `/sessions/${encodeURIComponent(sessionId)}/checkpoints?limit=${THREAD_PAGE}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`,
        SessionCheckpointPageSchema,
        { signal },
      ),
    getNextPageParam: (last) => last.next_cursor,
    select: (data) => data.pages.flatMap((p) => p.items),
  });
}

/** The checkpoints a run wrote, oldest first; only asked for once `enabled` (the panel is open, the run has ended). */
export function useRunCheckpoints(runId: string, enabled: boolean) {
  return useQuery({
    queryKey: stateKeys.runCheckpoints(runId),
    enabled,
    queryFn: async ({ signal }) => (await api(`/runs/${encodeURIComponent(runId)}/checkpoints`, RunCheckpointsSchema, { signal })).items,
  });
}

/** One checkpoint's channels, pending writes, next tasks and its step's diff. A checkpoint never changes: cached for good. */
export function useCheckpoint(sessionId: string, checkpointId: string | null, ns = '') {
  return useQuery({
    queryKey: stateKeys.checkpoint(sessionId, checkpointId ?? '-', ns),
    enabled: checkpointId !== null,
    staleTime: Infinity,
    queryFn: ({ signal }) =>
      api(
        `/sessions/${encodeURIComponent(sessionId)}/checkpoints/${encodeURIComponent(checkpointId!)}${ns ? `?ns=${encodeURIComponent(ns)}` : ''}`,
        SessionCheckpointDetailSchema,
        { signal },
      ),
  });
}

/** POST /runs/{id}/fork: a new session whose run continues from the checkpoint, with the edited
 * channels (none: "re-run from here"). */
export function useForkRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({
      runId,
      checkpointId,
      checkpointNs,
      values,
    }: {
      runId: string;
      checkpointId: string;
      checkpointNs?: string;
      values?: Record<string, unknown>;
    }) =>
      api(`/runs/${encodeURIComponent(runId)}/fork`, RunAcceptedSchema, {
        method: 'POST',
        // A subgraph's checkpoint is named with its namespace: the fork continues inside the subgraph.
        body: { checkpoint_id: checkpointId, ...(checkpointNs ? { checkpoint_ns: checkpointNs } : {}), ...(values ? { values } : {}) },
      }),
    onSettled: () => invalidateRunLists(qc),
  });
}

/** The loaded graph's state schema (what an edit may hold); read once the editor opens. */
export function useStateSchema(enabled: boolean) {
  return useQuery({ queryKey: stateKeys.schema, enabled, staleTime: 30_000, queryFn: ({ signal }) => api('/state-schema', StateSchemaSchema, { signal }) });
}

/** Continue (or Step) a paused run with an edit of its paused state (docs/playground-api.md,
 * "Continue with an edited state"): a child run, as Continue without an edit. */
export function useContinueEdited() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ runId, action, values }: { runId: string; action: BreakpointAction; values: Record<string, unknown> }) =>
      api(`/runs/${encodeURIComponent(runId)}/resume`, RunAcceptedSchema, { method: 'POST', body: { breakpoint: action, values } }),
    onSettled: (reply, _err, vars) => {
      void qc.invalidateQueries({ queryKey: ['pause', vars.runId] });
      void qc.invalidateQueries({ queryKey: keys.run(vars.runId) });
      invalidateRunLists(qc, reply?.session_id);
    },
  });
}
