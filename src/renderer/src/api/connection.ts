// The connection profile (docs/studio-api.md, "Connection profile"): the header the Playground
// sends to the runtime instead of the studio's own credential. The studio answers a hint, never
// the value; the value goes out once, in the PUT.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ConnectionReplySchema, type ConnectionReply, type ConnectionRequest } from '../../../shared/studio-api.ts';
import { api } from './client.ts';

export const connectionKey = ['runtime-connection'] as const;
const PATH = '/api/runtime/connection';

export function useConnection() {
  return useQuery({ queryKey: connectionKey, queryFn: ({ signal }) => api(PATH, ConnectionReplySchema, { signal }) });
}

export function useSaveConnection() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ConnectionRequest | null): Promise<ConnectionReply> =>
      body ? api(PATH, ConnectionReplySchema, { method: 'PUT', body }) : api(PATH, ConnectionReplySchema, { method: 'DELETE' }),
    onSuccess: (reply) => qc.setQueryData(connectionKey, reply),
  });
}
