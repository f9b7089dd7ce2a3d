// The runtime child as the studio sees it (docs/studio-api.md): its process state (/api/runtime)
// and where its trace spans go (/api/runtime/trace-sinks, from the runtime's /api/v1/status).
import { useQuery } from '@tanstack/react-query';
import { RuntimeStatusReplySchema, TraceSinksReplySchema } from '../../../shared/studio-api.ts';
import { api } from './client.ts';

export const runtimeKeys = { status: ['runtime-status'] as const, traceSinks: ['runtime-trace-sinks'] as const };

export function useRuntimeStatus() {
  return useQuery({
    queryKey: runtimeKeys.status,
    queryFn: ({ signal }) => api('/api/runtime', RuntimeStatusReplySchema, { signal }),
    refetchInterval: 3000,
  });
}

/** The runtime's trace sinks, refreshed while shown: an exporter's buffer and errors move. */
export function useTraceSinks(enabled: boolean) {
  return useQuery({
    queryKey: runtimeKeys.traceSinks,
    queryFn: ({ signal }) => api('/api/runtime/trace-sinks', TraceSinksReplySchema, { signal }),
    refetchInterval: 3000,
    enabled,
  });
}
