// The experiment's aggregates drawn (docs/studio-ui.md, Evals): pass rate per assertion as
// bars, score and latency distributions as histograms (the reply's ten bins), and the trend of
// a dataset's experiments. Each chart is a list with its numbers in text too: colour and
// length are never the only signal, and a screen reader reads the figures.
import type { ExperimentAggregates, ExperimentSummary, Histogram } from '../../../../shared/experiments.ts';
import { formatTime } from '../../lib/format.ts';

const pct = (n: number | null) => (n === null ? '–' : `${Math.round(n * 100)} %`);

/** Pass rate per assertion label: a bar per label, pass / (pass + fail + error). */
export function AssertionBars({ assertions }: { assertions: ExperimentAggregates['assertions'] }) {
  if (assertions.length === 0) return <p className="muted small">No assertions checked yet.</p>;
  return (
    <figure className="chart" data-testid="assertion-bars">
      <figcaption className="chart__title">Pass rate per assertion</figcaption>
      <ul className="bars">
        {assertions.map((a) => {
          const checked = a.pass + a.fail + a.error;
          const rate = checked ? a.pass / checked : null;
          return (
            <li key={a.label} className="bars__row" data-testid="assertion-bar" data-label={a.label} data-rate={rate ?? ''}>
              <span className="bars__label" title={a.label}>
                {a.label}
              </span>
              <span className="bars__track" aria-hidden="true">
                <span className={`bars__fill${rate !== null && rate < 1 ? ' bars__fill--fail' : ''}`} style={{ width: `${(rate ?? 0) * 100}%` }} />
              </span>
              <span className="bars__value">
                {pct(rate)}{' '}
                <span className="muted">
                  ({a.pass}/{checked}
                  {a.skipped ? `, ${a.skipped} skipped` : ''})
                </span>
              </span>
            </li>
          );
        })}
      </ul>
    </figure>
  );
}

const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(1) : n.toFixed(2));

/** Ten equal-width bins over [min, max] (src/shared/experiments.ts HistogramSchema). */
export function HistogramChart({ title, histogram, unit = '', testId }: { title: string; histogram: Histogram | null; unit?: string; testId: string }) {
  if (!histogram || histogram.counts.every((c) => c === 0))
    return (
      <figure className="chart" data-testid={testId}>
        <figcaption className="chart__title">{title}</figcaption>
        <p className="muted small">No values yet.</p>
      </figure>
    );
  const peak = Math.max(...histogram.counts);
  const width = (histogram.max - histogram.min) / histogram.counts.length;
  return (
    <figure className="chart" data-testid={testId}>
      <figcaption className="chart__title">{title}</figcaption>
      <ol className="histo">
        {histogram.counts.map((c, i) => {
          const from = histogram.min + i * width;
          const label = `${fmt(from)}–${fmt(from + width)}${unit}: ${c}`;
          return (
            <li key={i} className="histo__bin" title={label} aria-label={label}>
              <span className="histo__bar" style={{ height: `${peak ? (c / peak) * 100 : 0}%` }} />
            </li>
          );
        })}
      </ol>
      <div className="histo__axis" aria-hidden="true">
        <span>
          {fmt(histogram.min)}
          {unit}
        </span>
        <span>
          {fmt(histogram.max)}
          {unit}
        </span>
      </div>
    </figure>
  );
}

/** A dataset's experiments over time (oldest left): one column per experiment, its pass rate;
 * a click opens it. */
export function TrendChart({ experiments, current, onOpen }: { experiments: ExperimentSummary[]; current?: string; onOpen: (id: string) => void }) {
  const shown = [...experiments].sort((a, b) => a.created_at.localeCompare(b.created_at)).slice(-40);
  if (shown.length < 2) return null;
  return (
    <figure className="chart" data-testid="experiment-trend">
      <figcaption className="chart__title">Pass rate of this dataset’s experiments over time</figcaption>
      <ol className="trend">
        {shown.map((e) => {
          const label = `${formatTime(e.created_at)}: ${pct(e.pass_rate)} passed (${e.status})`;
          return (
            <li key={e.experiment_id} className="trend__col">
              <button
                type="button"
                className={`trend__btn${e.experiment_id === current ? ' is-current' : ''}`}
                aria-label={`Open the experiment of ${label}`}
                aria-current={e.experiment_id === current ? 'true' : undefined}
                title={label}
                onClick={() => onOpen(e.experiment_id)}
              >
                <span className={`trend__bar trend__bar--${e.status}`} style={{ height: `${Math.max(2, (e.pass_rate ?? 0) * 100)}%` }} />
              </button>
            </li>
          );
        })}
      </ol>
    </figure>
  );
}
