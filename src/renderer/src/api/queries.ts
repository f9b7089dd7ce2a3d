// Server state through @tanstack/react-query: one hook per Playground API operation, each
// reply read with its shared schema (src/shared).
import { keepPreviousData, useInfiniteQuery, type InfiniteData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { z } from 'zod';
import {
  ACTIVE_STATES,
  isActive,
  RunAcceptedSchema,
  RunDetailSchema,
  RunPageSchema,
  SessionPageSchema,
  SessionSchema,
  TranscriptPageSchema,
  type RunDetail,
  type RunReason,
  type RunStatus,
  type RunSummary,
  type Session,
} from '../../../shared/playground.ts';
import type { CreateRunBody, InputPart } from '../../../shared/playground-requests.ts';
import { ComposerSchemaReplySchema, type ComposerSchemaReply } from '../../../shared/composer-schema.ts';
import { GraphViewSchema, type GraphView } from '../../../shared/graph-view.ts';
import { ApiError, api } from './client.ts';

export const keys = {
  sessions: ['sessions'] as const,
  sessionSearch: (q: string) => ['sessions', 'search', q] as const,
  runs: (sessionId: string) => ['runs', sessionId] as const,
  transcript: (sessionId: string) => ['transcript', sessionId] as const,
  run: (runId: string) => ['run', runId] as const,
  contracts: ['composer-schema'] as const,
  graph: ['graph'] as const,
};

const RUN_PAGE = 50;
type RunPage = z.infer<typeof RunPageSchema>;

/** Every session, following `next_cursor` (the sidebar shows them all); with `search`, those
 * whose title or run input text contains it. */
export function useSessions(search = '') {
  const q = search.trim();
  return useQuery({
    queryKey: q ? keys.sessionSearch(q) : keys.sessions,
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }): Promise<Session[]> => {
      const all: Session[] = [];
      let cursor: string | null = null;
      do {
        const params = new URLSearchParams();
        if (cursor) params.set('cursor', cursor);
        if (q) params.set('q', q);
        const qs: string = params.size ? `?${params.toString()}` : '';
        const page = await api(`/sessions${qs}`, SessionPageSchema, { signal });
        all.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      return all;
    },
  });
}

export function useRuns(sessionId: string | null) {
  return useInfiniteQuery({
    queryKey: keys.runs(sessionId ?? '-'),
    enabled: sessionId !== null,
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      api(`/sessions/${encodeURIComponent(sessionId!)}/runs?limit=${RUN_PAGE}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`, RunPageSchema, {
        signal,
      }),
    getNextPageParam: (last) => last.next_cursor,
    select: (data) => data.pages.flatMap((p) => p.items),
  });
}

export function useRun(runId: string | null) {
  return useQuery({
    queryKey: keys.run(runId ?? '-'),
    enabled: runId !== null,
    queryFn: ({ signal }) => api(`/runs/${encodeURIComponent(runId!)}`, RunDetailSchema, { signal }),
  });
}

/** Watches a run that blocks the composer (one active run per project, spec 8) until it ends. */
export function useBlockingRun(runId: string | null) {
  return useQuery({
    queryKey: keys.run(runId ?? '-'),
    enabled: runId !== null,
    queryFn: ({ signal }) => api(`/runs/${encodeURIComponent(runId!)}`, RunDetailSchema, { signal }),
    refetchInterval: (q) => (q.state.data && !isActive(q.state.data.status) ? false : 1000),
  });
}

/** GET /composer-schema: the declared input contracts and what the composer suggests. An
 * older studio without the endpoint means "no contracts". */
function useComposerSchema<T>(select: (d: ComposerSchemaReply) => T) {
  return useQuery({
    queryKey: keys.contracts,
    queryFn: async ({ signal }): Promise<ComposerSchemaReply> => {
      try {
        return await api('/composer-schema', ComposerSchemaReplySchema, { signal });
      } catch (err) {
        if (err instanceof ApiError && (err.status === 404 || err.status === 501)) return { contracts: [], run_options: [], skill_examples: [] };
        throw err;
      }
    },
    select,
    staleTime: 30_000,
    // While the runtime starts (503), ask again each second: the contracts come when it is up.
    retry: (count, err) => err instanceof ApiError && err.status === 503 && count < 120,
    retryDelay: 1000,
  });
}

const selectContracts = (d: ComposerSchemaReply) => d.contracts;
const selectRunOptions = (d: ComposerSchemaReply) => d.run_options;
const selectSkillExamples = (d: ComposerSchemaReply) => d.skill_examples;

export function useInputContracts() {
  return useComposerSchema(selectContracts);
}

/** The run options the loaded project declares: composer fields sent as request metadata. */
export function useRunOptions() {
  return useComposerSchema(selectRunOptions);
}

/** The agent card's skill examples: prompts to start from, and free-text field values. */
export function useSkillExamples() {
  return useComposerSchema(selectSkillExamples);
}

/** The graph without edges to nodes it does not draw (the layout needs both ends). */
function withKnownEnds(graph: GraphView): GraphView {
  const ids = new Set(graph.nodes.map((n) => n.id));
  return { ...graph, edges: graph.edges.filter((e) => ids.has(e.source) && ids.has(e.target)) };
}

export function useAgentGraph() {
  return useQuery({
    queryKey: keys.graph,
    queryFn: async ({ signal }): Promise<GraphView> => withKnownEnds(await api('/graph', GraphViewSchema, { signal })),
    // The runtime may still be starting when the studio opens: try for a few seconds.
    retry: (count, err) => !(err instanceof ApiError && err.status === 404) && count < 4,
    retryDelay: 1000,
    staleTime: 60_000,
  });
}

/** Marks the lists a run appears in as stale and fetches them again. A fetch already under
 * way is cancelled first: its reply may have been read before the change that caused this
 * call, and TanStack Query would otherwise hand that reply to a query that has no data yet
 * rather than fetch again (a run list or detail showing "running" after the stream said
 * input_required). */
export function invalidateRunLists(qc: QueryClient, sessionId?: string | null): void {
  refresh(qc, keys.sessions);
  refresh(qc, sessionId ? keys.runs(sessionId) : ['runs']);
  refresh(qc, sessionId ? keys.transcript(sessionId) : ['transcript']);
  // A finished run may teach the composer new values.
  void qc.invalidateQueries({ queryKey: keys.contracts });
}

export function refresh(qc: QueryClient, queryKey: readonly unknown[]): void {
  void qc.cancelQueries({ queryKey }).then(() => qc.invalidateQueries({ queryKey }));
}

/** How far along its lifecycle a status is (docs/architecture.md, the run states): a run only
 * moves forward, and a final state is final. */
function statusRank(status: RunStatus): number {
  return isActive(status) ? ACTIVE_STATES.indexOf(status) : ACTIVE_STATES.length;
}

/** Whether `next`, read from the run's event stream, is news over the cached `current`: a
 * replayed or late event never moves a run back (a final state stays, running never returns
 * to queued). */
export function isNewerStatus(current: RunStatus, next: RunStatus): boolean {
  return statusRank(next) > statusRank(current) || (next === current && !isActive(next));
}

/** Writes a run's status, as its event stream says it, into every cached place the run is
 * shown (its detail, its session's run list) in the same update, so the composer, the sidebar
 * and the run view agree from that frame on; the lists are then fetched again for the rest. */
export function applyRunStatus(qc: QueryClient, runId: string, status: RunStatus, reason: RunReason | null): void {
  const patch = <T extends RunSummary>(r: T): T => (r.run_id === runId && isNewerStatus(r.status, status) ? { ...r, status, reason: reason ?? r.reason } : r);
  qc.setQueryData<RunDetail>(keys.run(runId), (old) => (old ? patch(old) : old));
  qc.setQueriesData<InfiniteData<RunPage>>({ queryKey: ['runs'] }, (old) =>
    old ? { ...old, pages: old.pages.map((p) => ({ ...p, items: p.items.map(patch) })) } : old,
  );
  if (!isActive(status)) refresh(qc, keys.run(runId));
  invalidateRunLists(qc, qc.getQueryData<RunDetail>(keys.run(runId))?.session_id);
}

const TRANSCRIPT_PAGE = 200;

/** A session's turns, oldest first: every page is fetched (the view is virtualised). */
export function useTranscript(sessionId: string) {
  const q = useInfiniteQuery({
    queryKey: keys.transcript(sessionId),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam, signal }) =>
      api(
        `/sessions/${encodeURIComponent(sessionId)}/transcript?limit=${TRANSCRIPT_PAGE}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`,
        TranscriptPageSchema,
        { signal },
      ),
    getNextPageParam: (last) => last.next_cursor,
    select: (data) => data.pages.flatMap((p) => p.items),
    // A turn still under way (a branch's first run, a message sent from the composer) is read
    // again each second until it ends.
    refetchInterval: (q) => (q.state.data?.pages.some((p) => p.items.some((t) => isActive(t.status))) ? 1000 : false),
  });
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = q;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  return q;
}

export function useCreateSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (title?: string) => api('/sessions', SessionSchema, { method: 'POST', body: title ? { title } : {} }),
    onSuccess: (session) => {
      // Known at once, so selecting it does not wait for the list to refetch.
      qc.setQueryData<Session[]>(keys.sessions, (old) => [session, ...(old ?? []).filter((s) => s.session_id !== session.session_id)]);
      void qc.invalidateQueries({ queryKey: keys.sessions });
    },
  });
}

export function useRenameSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ sessionId, title }: { sessionId: string; title: string }) =>
      api(`/sessions/${encodeURIComponent(sessionId)}`, SessionSchema, { method: 'PATCH', body: { title } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.sessions }),
  });
}

export function useDeleteSession() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (sessionId: string) => api(`/sessions/${encodeURIComponent(sessionId)}`, z.unknown(), { method: 'DELETE' }),
    onSuccess: (_r, sessionId) => {
      qc.removeQueries({ queryKey: keys.runs(sessionId) });
      void qc.invalidateQueries({ queryKey: keys.sessions });
    },
  });
}

export function useCreateRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ sessionId, body }: { sessionId: string; body: CreateRunBody }) =>
      api(`/sessions/${encodeURIComponent(sessionId)}/runs`, RunAcceptedSchema, { method: 'POST', body }),
    onSettled: (_r, _e, { sessionId }) => invalidateRunLists(qc, sessionId),
  });
}

export function useResumeRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ runId, parts, metadata }: { runId: string; parts: InputPart[]; metadata: Record<string, unknown> }) =>
      api(`/runs/${encodeURIComponent(runId)}/resume`, RunAcceptedSchema, { method: 'POST', body: { parts, metadata } }),
    onSettled: (r) => invalidateRunLists(qc, r?.session_id),
  });
}

export function useRerun() {
  const qc = useQueryClient();
  return useMutation({
    // `replay`: the rerun's calls answered from a recorded run (docs/playground-api.md, "Replay").
    mutationFn: (arg: string | { runId: string; replay?: { from_run_id?: string; on_mismatch: 'error' | 'live' } }) => {
      const { runId, replay } = typeof arg === 'string' ? { runId: arg, replay: undefined } : arg;
      return api(`/runs/${encodeURIComponent(runId)}/rerun`, RunAcceptedSchema, { method: 'POST', ...(replay ? { body: { replay } } : {}) });
    },
    onSettled: (r) => invalidateRunLists(qc, r?.session_id),
  });
}

export function useCancelRun() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => api(`/runs/${encodeURIComponent(runId)}`, RunDetailSchema, { method: 'DELETE' }),
    onSettled: (_r, _e, runId) => {
      void qc.invalidateQueries({ queryKey: keys.run(runId) });
      invalidateRunLists(qc);
    },
  });
}
