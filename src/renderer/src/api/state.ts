// The debugger's reads (docs/playground-api.md, "The state at every step"): a run's
// checkpoints and one checkpoint's state, each reply read with its shared schema.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { SessionCheckpointDetailSchema, SessionCheckpointSchema } from '../../../shared/thread-state.ts';
import { RunAcceptedSchema } from '../../../shared/playground.ts';
import { api } from './client.ts';
import { invalidateRunLists } from './queries.ts';

const RunCheckpointsSchema = z.object({ items: z.array(SessionCheckpointSchema) });

export const stateKeys = {
  runCheckpoints: (runId: string) => ['run-checkpoints', runId] as const,
  checkpoint: (sessionId: string, checkpointId: string, ns: string) => ['checkpoint', sessionId, checkpointId, ns] as const,
};

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
