// Two experiments side by side (docs/studio-ui.md, Evals): per case improved / regressed /
// unchanged / new / removed with the pass rates and score deltas, the run compare of a case
// one click away, and the code files that changed between the two fingerprints.
import { useMemo, useState } from 'react';
import { CASE_VERDICTS, type CaseVerdict, type CompareCase } from '../../../../shared/experiments.ts';
import { errorMessage } from '../../api/client.ts';
import { useExperimentCompare } from '../../api/experiments.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import { UsageDiff } from '../compare/UsageDiff.tsx';
import { formatTokenDelta, formatUsdDelta } from '../../lib/usage-format.ts';

/** A case's change in tokens and cost, right minus left. */
function UsageCell({ usage }: { usage: CompareCase['usage'] }) {
  if (!usage || usage.total_tokens_delta === null) return <span className="muted">—</span>;
  return (
    <span data-testid="expcompare-case-usage" data-tokens-delta={usage.total_tokens_delta} data-cost-delta={usage.cost_usd_delta ?? ''}>
      {formatTokenDelta(usage.total_tokens_delta)} tok{usage.cost_usd_delta !== null ? ` · ${formatUsdDelta(usage.cost_usd_delta)}` : ''}
    </span>
  );
}

const VERDICT_GLYPH: Record<CaseVerdict, string> = { improved: '▲', regressed: '▼', unchanged: '=', new: '+', removed: '−' };
const pct = (n: number | null | undefined) => (n === null || n === undefined ? '–' : `${Math.round(n * 100)} %`);

function Side({ side }: { side: CompareCase['left'] }) {
  if (!side) return <span className="muted">—</span>;
  return (
    <span>
      {pct(side.pass_rate)}{' '}
      <span className="muted small">
        ({side.passed}/{side.runs})
      </span>
    </span>
  );
}

export function ExperimentCompare({ left, right }: { left: string; right: string }) {
  const q = useExperimentCompare(left, right);
  const openCompare = useUi((s) => s.openCompare);
  const openExperiment = useUi((s) => s.openExperiment);
  const openSource = useUi((s) => s.openSource);
  const [only, setOnly] = useState<CaseVerdict | 'changed' | 'all'>('changed');
  const d = q.data;
  const rows = useMemo(
    () => (d?.cases ?? []).filter((c) => only === 'all' || (only === 'changed' ? c.verdict !== 'unchanged' : c.verdict === only)),
    [d, only],
  );
  if (left === right) return <p className="muted">Pick two different experiments.</p>;
  if (q.isPending) return <p className="muted">Comparing…</p>;
  if (q.isError || !d) return <p className="field-error">Could not compare the experiments: {errorMessage(q.error)}</p>;
  return (
    <article className="exp expcompare" aria-labelledby="expcompare-title" data-testid="experiment-compare">
      <header className="exp__header">
        <h1 className="exp__title" id="expcompare-title">
          Experiments compared on {d.right.dataset}
        </h1>
        <p className="small">
          Baseline{' '}
          <button type="button" className="linkbtn" onClick={() => openExperiment(d.left.experiment_id)} data-testid="expcompare-left">
            {formatDateTime(d.left.created_at)} ({pct(d.left.pass_rate)})
          </button>{' '}
          → new{' '}
          <button type="button" className="linkbtn" onClick={() => openExperiment(d.right.experiment_id)} data-testid="expcompare-right">
            {formatDateTime(d.right.created_at)} ({pct(d.right.pass_rate)})
          </button>
          {d.same_dataset ? '' : ' · the dataset changed between them'}
          {d.same_code ? ' · same code' : ''}
        </p>
      </header>
      {d.usage ? (
        <section className="compare__section" aria-labelledby="expcompare-usage">
          <h2 className="subhead" id="expcompare-usage">
            Tokens and cost
          </h2>
          <UsageDiff usage={d.usage} testId="expcompare-usage" />
        </section>
      ) : null}
      <div className="segmented" role="group" aria-label="Show cases">
        {(['changed', ...CASE_VERDICTS, 'all'] as const).map((v) => (
          <button
            key={v}
            type="button"
            className={`segmented__btn${only === v ? ' is-on' : ''}`}
            aria-pressed={only === v}
            onClick={() => setOnly(v)}
            data-testid={`verdict-filter-${v}`}
            data-count={v === 'all' ? d.cases.length : v === 'changed' ? d.cases.filter((c) => c.verdict !== 'unchanged').length : (d.counts[v] ?? 0)}
          >
            {v === 'all' ? `All (${d.cases.length})` : v === 'changed' ? 'Changed' : `${v} (${d.counts[v] ?? 0})`}
          </button>
        ))}
      </div>
      <table className="table table--compact expcompare__table" data-testid="expcompare-cases">
        <caption className="visually-hidden">Cases of the two experiments</caption>
        <thead>
          <tr>
            <th scope="col">Case</th>
            <th scope="col">Verdict</th>
            <th scope="col">Baseline</th>
            <th scope="col">New</th>
            <th scope="col">Score deltas</th>
            <th scope="col">Tokens, cost Δ</th>
            <th scope="col">Runs</th>
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={7} className="muted">
                No case in this group.
              </td>
            </tr>
          ) : null}
          {rows.map((c) => (
            <tr key={c.case_id} data-testid="expcompare-case" data-case-id={c.case_id} data-verdict={c.verdict}>
              <th scope="row">
                <code>{c.case_id}</code>
              </th>
              <td>
                <span className={`verdict verdict--${c.verdict}`}>
                  <span aria-hidden="true">{VERDICT_GLYPH[c.verdict]}</span> {c.verdict}
                </span>
              </td>
              <td>
                <Side side={c.left} />
              </td>
              <td>
                <Side side={c.right} />
              </td>
              <td className="small">
                {c.score_deltas
                  .filter((s) => s.delta !== null && s.delta !== 0)
                  .map((s) => `${s.evaluator} ${s.delta! > 0 ? '+' : ''}${s.delta!.toFixed(2)}`)
                  .join(', ') || <span className="muted">—</span>}
              </td>
              <td className="small">
                <UsageCell usage={c.usage} />
              </td>
              <td>
                {c.run_compare ? (
                  <button
                    type="button"
                    className="btn btn--small btn--primary-outline"
                    onClick={() => openCompare(c.run_compare!.left, c.run_compare!.right)}
                    data-testid="expcompare-open-runs"
                    aria-label={`Compare the runs of case ${c.case_id}`}
                  >
                    Compare runs
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <section className="compare__section" aria-labelledby="expcompare-files">
        <h2 className="subhead" id="expcompare-files">
          Code changed between them
        </h2>
        {d.changed_files.length === 0 ? (
          <p className="muted small" data-testid="expcompare-no-files">
            The two experiments ran the same code.
          </p>
        ) : (
          <ul className="compare__files" data-testid="expcompare-files">
            {d.changed_files.map((f) => (
              <li key={f.path}>
                <span className={`pill pill--${f.change === 'modified' ? 'changed' : f.change}`}>{f.change}</span>{' '}
                {f.change === 'removed' ? (
                  <code>{f.path}</code>
                ) : (
                  <button type="button" className="linkbtn" onClick={() => openSource({ file: f.path })}>
                    <code>{f.path}</code>
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </article>
  );
}
