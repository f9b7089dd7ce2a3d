// Tokens and cost of two runs (or two experiments), left the baseline, and right minus left
// (docs/studio-ui.md "Tokens and cost"). A side without a price says so; no delta then.
import type { UsageDelta, UsageTotals } from '../../../../shared/usage.ts';
import { costLabel, formatTokenDelta, formatTokens, formatUsdDelta, usageTitle } from '../../lib/usage-format.ts';

function deltaClass(v: number | null): string {
  return v === null || v === 0 ? 'delta delta--flat' : v > 0 ? 'delta delta--down' : 'delta delta--up';
}

const cost = (t: UsageTotals | null) => (t ? costLabel(t) || '–' : '–');

export function UsageDiff({ usage, testId = 'usage-diff' }: { usage: UsageDelta | undefined; testId?: string }) {
  if (!usage || (!usage.left?.calls && !usage.right?.calls)) return <p className="muted">Neither side made a model call that reported usage.</p>;
  const { left, right } = usage;
  const rows: { label: string; l: string; r: string; d: string; v: number | null; test: string }[] = [
    {
      label: 'Tokens',
      l: left ? formatTokens(left.total_tokens) : '–',
      r: right ? formatTokens(right.total_tokens) : '–',
      d: usage.total_tokens_delta === null ? '–' : formatTokenDelta(usage.total_tokens_delta),
      v: usage.total_tokens_delta,
      test: 'tokens',
    },
    {
      label: 'Cost',
      l: cost(left),
      r: cost(right),
      d: usage.cost_usd_delta === null ? '–' : formatUsdDelta(usage.cost_usd_delta),
      v: usage.cost_usd_delta,
      test: 'cost',
    },
  ];
  return (
    <table className="table" data-testid={testId}>
      <caption className="visually-hidden">Tokens and cost, left and right</caption>
      <thead>
        <tr>
          <th scope="col">
            <span className="visually-hidden">Measure</span>
          </th>
          <th scope="col" className="num" title={left ? usageTitle(left) : undefined}>
            Left
          </th>
          <th scope="col" className="num" title={right ? usageTitle(right) : undefined}>
            Right
          </th>
          <th scope="col" className="num">
            Δ
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.label}>
            <th scope="row">{row.label}</th>
            <td className="num">{row.l}</td>
            <td className="num">{row.r}</td>
            <td className="num">
              <span className={deltaClass(row.v)} data-testid={`usage-delta-${row.test}`} data-delta={row.v ?? ''}>
                {row.d}
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
