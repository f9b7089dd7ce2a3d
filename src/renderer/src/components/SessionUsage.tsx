// The session's tokens and cost (GET /sessions/{id}/usage, docs/studio-ui.md "Tokens and
// cost"), beside the session's view switch; read again whenever one of its runs changes status.
import { useQuery } from '@tanstack/react-query';
import { SessionUsageSchema } from '../../../shared/usage.ts';
import { api } from '../api/client.ts';
import { usageLine, usageTitle } from '../lib/usage-format.ts';

export function SessionUsage({ sessionId, version }: { sessionId: string; version: string }) {
  const q = useQuery({
    queryKey: ['session-usage', sessionId, version],
    queryFn: ({ signal }) => api(`/sessions/${encodeURIComponent(sessionId)}/usage`, SessionUsageSchema, { signal }),
  });
  const t = q.data?.totals;
  if (!t?.calls || (!t.total_tokens && !t.unpriced_calls)) return null;
  return (
    <span className="muted small session-usage" data-testid="session-usage" data-tokens={t.total_tokens} data-cost={t.cost_usd ?? ''} title={usageTitle(t)}>
      Session: {usageLine(t)}
    </span>
  );
}
