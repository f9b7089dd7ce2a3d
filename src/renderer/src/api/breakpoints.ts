// Breakpoints and stepping (docs/playground-api.md, "Breakpoints and stepping"): a session's
// breakpoints, where a run paused, and Continue / Step / Stop, each reply read with its shared schema.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { PausePointSchema, SessionBreakpointSchema, type Breakpoint, type BreakpointAction } from '../../../shared/breakpoints.ts';
import { RunAcceptedSchema, RunDetailSchema } from '../../../shared/playground.ts';
import { api } from './client.ts';
import { invalidateRunLists, keys } from './queries.ts';

const ListSchema = z.object({ items: z.array(SessionBreakpointSchema) });
const PauseSchema = PausePointSchema.extend({ state: z.enum(['paused', 'continued', 'stopped']), continued_by: z.string().nullable() });

export const breakpointKeys = {
  session: (sessionId: string) => ['breakpoints', sessionId] as const,
  pause: (runId: string) => ['pause', runId] as const,
};

const path = (sessionId: string) => `/sessions/${encodeURIComponent(sessionId)}/breakpoints`;

export function useBreakpoints(sessionId: string | null) {
  return useQuery({
    queryKey: breakpointKeys.session(sessionId ?? '-'),
    enabled: sessionId !== null,
    queryFn: async ({ signal }) => (await api(path(sessionId!), ListSchema, { signal })).items,
  });
}

/** Sets (`on`) or clears one breakpoint of the session. */
export function useToggleBreakpoint(sessionId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ node, when, on }: Breakpoint & { on: boolean }) =>
      on
        ? api(path(sessionId), ListSchema, { method: 'PUT', body: { node, when } })
        : api(`${path(sessionId)}?node=${encodeURIComponent(node)}&when=${when}`, ListSchema, { method: 'DELETE' }),
    onSuccess: (reply) => qc.setQueryData(breakpointKeys.session(sessionId), reply.items),
  });
}

/** Where a run paused and what became of the pause; only for a run that ended with reason `breakpoint`. */
export function useRunPause(runId: string, enabled: boolean) {
  return useQuery({
    queryKey: breakpointKeys.pause(runId),
    enabled,
    queryFn: ({ signal }) => api(`/runs/${encodeURIComponent(runId)}/pause`, PauseSchema, { signal }),
  });
}

/** Continue or Step (a resume with no input: a child run), or Stop (the paused task canceled). */
export function usePauseAction(runId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (action: BreakpointAction | 'stop') =>
      action === 'stop'
        ? { stopped: await api(`/runs/${encodeURIComponent(runId)}`, RunDetailSchema, { method: 'DELETE' }) }
        : { accepted: await api(`/runs/${encodeURIComponent(runId)}/resume`, RunAcceptedSchema, { method: 'POST', body: { breakpoint: action } }) },
    onSettled: (reply) => {
      void qc.invalidateQueries({ queryKey: breakpointKeys.pause(runId) });
      void qc.invalidateQueries({ queryKey: keys.run(runId) });
      invalidateRunLists(qc, reply?.accepted?.session_id ?? reply?.stopped?.session_id);
    },
  });
}
