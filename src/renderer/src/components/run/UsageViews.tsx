// Tokens and cost in the run view (docs/studio-ui.md "Tokens and cost"): the run's in its
// header, and each node's share in the Nodes waterfall, folded from the live `model.call`
// trace events (src/shared/usage.ts), each priced by the runtime.
import type { CallUsage, SpanUsage, UsageTotals } from '../../../../shared/usage.ts';
import { PricesButton } from './PricesDialog.tsx';
import { costLabel, formatTokens, formatUsd, usageLine, usageTitle } from '../../lib/usage-format.ts';

/** The run's tokens and cost, in the header, and the project's prices to edit; nothing when no
 * model call reported usage. */
export function RunUsageMeta({ totals }: { totals: UsageTotals }) {
  if (!totals.calls || (!totals.total_tokens && !totals.unpriced_calls)) return null;
  return (
    <>
      <span
        className="usage-meta"
        data-testid="run-usage"
        data-tokens={totals.total_tokens}
        data-cost={totals.cost_usd ?? ''}
        data-unpriced={totals.unpriced_models.join(',') || undefined}
        title={usageTitle(totals)}
      >
        {usageLine(totals)}
      </span>
      <PricesButton unpriced={totals.unpriced_models} />
    </>
  );
}

/** A span's share of the run's tokens and cost: a bar (its share of the cost when the run has
 * one, else of the tokens) and the figures; empty for a span that made no model call. */
export function SpanUsageCell({ usage }: { usage: SpanUsage | undefined }) {
  if (!usage || !usage.total_tokens) return <span className="waterfall__usage" aria-hidden="true" />;
  const share = usage.cost_share ?? usage.token_share ?? 0;
  const cost = usage.cost_usd !== null ? formatUsd(usage.cost_usd) : usage.unpriced_calls ? costLabel(usage) : '';
  const label = `${formatTokens(usage.total_tokens)} tok${usage.cost_usd !== null ? ` · ${cost}` : ''} · ${Math.round(share * 100)}%`;
  return (
    <span
      className="waterfall__usage"
      data-testid="span-usage"
      data-tokens={usage.total_tokens}
      data-cost={usage.cost_usd ?? ''}
      data-share={share.toFixed(4)}
      title={`${usageTitle(usage)}\n${Math.round(share * 100)}% of the run's ${usage.cost_share !== null ? 'cost' : 'tokens'}`}
    >
      <span className="waterfall__usage-track" aria-hidden="true">
        <span className="waterfall__usage-bar" style={{ width: `${Math.max(2, share * 100)}%` }} />
      </span>
      <span className="waterfall__usage-label">{label}</span>
    </span>
  );
}

/** The model calls a span made (its fan-out branches' included), one line each. */
export function SpanCalls({ calls }: { calls: CallUsage[] }) {
  if (!calls.length) return null;
  return (
    <>
      <h4 className="subhead">Model calls</h4>
      <ul className="span-calls" data-testid="span-calls">
        {calls.map((c) => (
          <li key={c.span_id} data-testid="span-call" data-tokens={c.usage ? c.usage.input_tokens + c.usage.output_tokens : ''} data-cost={c.cost_usd ?? ''}>
            <code>{c.model ?? c.provider ?? 'model'}</code>
            {c.branch ? <span className="muted"> in {c.branch}</span> : null}
            {' · '}
            {c.usage
              ? `${formatTokens(c.usage.input_tokens)} in${c.usage.cache_read_tokens ? ` (${formatTokens(c.usage.cache_read_tokens)} cached)` : ''}, ${formatTokens(c.usage.output_tokens)} out · ${c.cost_usd !== null ? formatUsd(c.cost_usd) : 'no price'}`
              : 'no usage reported'}
            {c.status !== 'completed' ? ` · ${c.status}` : ''}
          </li>
        ))}
      </ul>
    </>
  );
}
