// How tokens and cost read in the studio (docs/studio-ui.md "Tokens and cost"): a cost is never
// shown as $0 for a model with no price; it says which models have none.
import type { UsageTotals } from '../../../shared/usage.ts';

/** `$0.000432`, `$0.0123`, `$1.23`: small amounts keep three significant digits. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  const abs = Math.abs(usd);
  const sign = usd < 0 ? '-' : '';
  if (abs >= 1) return `${sign}$${abs.toFixed(2)}`;
  return `${sign}$${Number(abs.toPrecision(3)).toString()}`;
}

/** A signed delta: `+$0.0002`, `-120 tokens`. */
export function formatUsdDelta(usd: number): string {
  return usd > 0 ? `+${formatUsd(usd)}` : formatUsd(usd);
}

export function formatTokens(n: number): string {
  if (n < 10_000) return `${n}`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

export function formatTokenDelta(n: number): string {
  return n > 0 ? `+${formatTokens(n)}` : n < 0 ? `-${formatTokens(-n)}` : '0';
}

/** What the cost of some calls is: a price, a price that leaves calls out, or no price. */
export function costLabel(t: UsageTotals): string {
  if (t.cost_usd === null) return t.unpriced_calls ? `no price for ${t.unpriced_models.join(', ')}` : '';
  return t.unpriced_calls ? `${formatUsd(t.cost_usd)} + ${t.unpriced_calls} unpriced call${t.unpriced_calls === 1 ? '' : 's'}` : formatUsd(t.cost_usd);
}

/** The whole of it in one line: `416 tokens (160 cached) · $0.000432`. */
export function usageLine(t: UsageTotals): string {
  const cached = t.cache_read_tokens ? ` (${formatTokens(t.cache_read_tokens)} cached)` : '';
  const cost = costLabel(t);
  return `${formatTokens(t.total_tokens)} tokens${cached}${cost ? ` · ${cost}` : ''}`;
}

/** The detail a tooltip gives. */
export function usageTitle(t: UsageTotals): string {
  const lines = [
    `${t.calls} model call${t.calls === 1 ? '' : 's'}`,
    `input ${t.input_tokens} (cached read ${t.cache_read_tokens}, cache write ${t.cache_creation_tokens})`,
    `output ${t.output_tokens}`,
  ];
  if (t.cost_usd !== null) lines.push(`cost ${formatUsd(t.cost_usd)}`);
  if (t.unpriced_calls) lines.push(`no price for ${t.unpriced_models.join(', ')}: add it under pricing in agent.json`);
  if (t.calls_without_usage) lines.push(`${t.calls_without_usage} call(s) reported no usage`);
  return lines.join('\n');
}
