// One experiment (docs/studio-ui.md, Evals): what it ran (dataset version, code fingerprint,
// model), its progress and cancel while it runs, the aggregates drawn, and every case result
// filtered (failures only, by tag, changed since an earlier experiment).
import { usageLine, usageTitle } from '../../lib/usage-format.ts';
import { useMemo, useState } from 'react';
import type { ExperimentCase, ExperimentDetail } from '../../../../shared/experiments.ts';
import { errorMessage } from '../../api/client.ts';
import { useCancelExperiment, useExperiment, useExperimentCases, useExperimentCompare, useExperiments } from '../../api/experiments.ts';
import { useExperimentProgress } from '../../api/experimentEvents.ts';
import { formatDateTime, shortHash } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import { AssertionBars, HistogramChart, TrendChart } from './Charts.tsx';
import { CaseResults } from './CaseResults.tsx';

const reasonText: Record<string, string> = {
  user_cancelled: 'cancelled by you',
  code_changed: 'stopped: the code changed while it ran',
  studio_shutdown: 'stopped: the studio shut down',
  internal_error: 'stopped by an internal error',
};

function Progress({ e }: { e: ExperimentDetail }) {
  const c = e.counts;
  const done = c.passed + c.failed + c.error + c.cancelled;
  return (
    <div className="expprogress" data-testid="experiment-progress">
      <div
        className="expprogress__track"
        role="progressbar"
        aria-label="Cases done"
        aria-valuemin={0}
        aria-valuemax={c.total}
        aria-valuenow={done}
        aria-valuetext={`${done} of ${c.total} cases done`}
      >
        <span className="expprogress__pass" style={{ width: `${(c.passed / Math.max(1, c.total)) * 100}%` }} />
        <span className="expprogress__fail" style={{ width: `${((c.failed + c.error) / Math.max(1, c.total)) * 100}%` }} />
      </div>
      <span className="expprogress__text" data-testid="experiment-counts" data-passed={c.passed} data-failed={c.failed + c.error} data-total={c.total}>
        {done} / {c.total} done · {c.passed} passed · {c.failed} failed{c.error ? ` · ${c.error} errors` : ''}
        {c.cancelled ? ` · ${c.cancelled} cancelled` : ''}
        {c.running ? ` · ${c.running} running` : ''}
      </span>
    </div>
  );
}

function Header({ e }: { e: ExperimentDetail }) {
  const cancel = useCancelExperiment();
  const openDataset = useUi((s) => s.openDataset);
  return (
    <header className="exp__header">
      <h1 className="exp__title" id="experiment-title">
        Experiment on{' '}
        <button type="button" className="linkbtn" onClick={() => openDataset(e.dataset)}>
          {e.dataset}
        </button>{' '}
        <span className={`expstatus expstatus--${e.status}`} data-testid="experiment-status" data-status={e.status}>
          {e.status}
        </span>
      </h1>
      <p className="muted small">
        {formatDateTime(e.created_at)} · dataset version {shortHash(e.dataset_hash)} · code {e.code_fingerprint ? shortHash(e.code_fingerprint) : 'unknown'} ·
        model {e.model.provider}
        {e.model.model ? ` ${e.model.model}` : ''}
        {e.model.real ? '' : ' (offline)'} · repeat {e.repeat} · concurrency {e.concurrency}
        {e.tags_filter ? ` · tags ${e.tags_filter.join(', ')}` : ''}
        {e.cases_filter ? ` · ${e.cases_filter.length} chosen cases` : ''}
      </p>
      {e.reason && e.status !== 'completed' ? (
        <p className="banner banner--info" data-testid="experiment-reason">
          {reasonText[e.reason] ?? e.reason}
          {e.changed_files.length ? `: ${e.changed_files.join(', ')}` : ''}. Run it again to measure the code as it is now.
        </p>
      ) : null}
      <Progress e={e} />
      {e.status === 'running' ? (
        <button
          type="button"
          className="btn btn--danger-outline btn--small"
          disabled={cancel.isPending}
          onClick={() => cancel.mutate(e.experiment_id)}
          data-testid="experiment-cancel"
        >
          {cancel.isPending ? 'Cancelling…' : 'Cancel experiment'}
        </button>
      ) : null}
      {cancel.isError ? (
        <span className="field-error" role="alert">
          {errorMessage(cancel.error)}
        </span>
      ) : null}
    </header>
  );
}

type Show = 'all' | 'failures';

function Filters({
  e,
  tags,
  show,
  setShow,
  tag,
  setTag,
  since,
  setSince,
}: {
  e: ExperimentDetail;
  tags: string[];
  show: Show;
  setShow: (s: Show) => void;
  tag: string;
  setTag: (t: string) => void;
  since: string;
  setSince: (s: string) => void;
}) {
  const others = useExperiments(e.dataset).data?.filter((x) => x.experiment_id !== e.experiment_id) ?? [];
  const openCompare = useUi((s) => s.openExperimentCompare);
  return (
    <div className="exp__filters" role="group" aria-label="Filter the case results">
      <div className="segmented" role="group" aria-label="Show">
        {(['all', 'failures'] as const).map((s) => (
          <button
            key={s}
            type="button"
            className={`segmented__btn${show === s ? ' is-on' : ''}`}
            aria-pressed={show === s}
            onClick={() => setShow(s)}
            data-testid={`filter-${s}`}
          >
            {s === 'all' ? 'All cases' : 'Failures only'}
          </button>
        ))}
      </div>
      <label className="field field--inline">
        <span className="field__label">Tag</span>
        <select className="input input--small" value={tag} onChange={(ev) => setTag(ev.target.value)} data-testid="filter-tag">
          <option value="">any</option>
          {tags.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      {others.length ? (
        <label className="field field--inline">
          <span className="field__label">Changed since</span>
          <select className="input input--small" value={since} onChange={(ev) => setSince(ev.target.value)} data-testid="filter-since">
            <option value="">—</option>
            {others.map((o) => (
              <option key={o.experiment_id} value={o.experiment_id}>
                {formatDateTime(o.created_at)} ({o.pass_rate === null ? '–' : `${Math.round(o.pass_rate * 100)} %`})
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {since ? (
        <button
          type="button"
          className="btn btn--small btn--primary-outline"
          onClick={() => openCompare(since, e.experiment_id)}
          data-testid="experiment-compare-since"
        >
          Compare with it
        </button>
      ) : null}
    </div>
  );
}

export function ExperimentView({ id }: { id: string }) {
  const q = useExperiment(id);
  const e = q.data;
  const cases = useExperimentCases(id, e?.status);
  useExperimentProgress(id, e?.status === 'running');
  const trend = useExperiments(e?.dataset ?? null);
  const openExperiment = useUi((s) => s.openExperiment);
  const [show, setShow] = useState<Show>('all');
  const [tag, setTag] = useState('');
  const [since, setSince] = useState('');
  const changed = useExperimentCompare(since || null, since ? id : null);

  const all = cases.data;
  const tags = useMemo(() => [...new Set((all ?? []).flatMap((c) => c.tags))].sort(), [all]);
  const shown = useMemo(() => {
    const changedIds = since && changed.data ? new Set(changed.data.cases.filter((c) => c.verdict !== 'unchanged').map((c) => c.case_id)) : null;
    return (all ?? []).filter(
      (c: ExperimentCase) =>
        (show === 'all' || c.status === 'failed' || c.status === 'error') && (!tag || c.tags.includes(tag)) && (!changedIds || changedIds.has(c.case_id)),
    );
  }, [all, show, tag, since, changed.data]);

  if (q.isPending) return <p className="muted">Loading the experiment…</p>;
  if (q.isError || !e) return <p className="field-error">Could not load the experiment: {errorMessage(q.error)}</p>;
  return (
    <article className="exp" aria-labelledby="experiment-title" data-testid="experiment-view" data-experiment-id={e.experiment_id} data-status={e.status}>
      <Header e={e} />
      {e.aggregates.usage?.calls ? (
        <p
          className="small"
          data-testid="experiment-usage"
          data-tokens={e.aggregates.usage.total_tokens}
          data-cost={e.aggregates.usage.cost_usd ?? ''}
          title={usageTitle(e.aggregates.usage)}
        >
          All cases: {usageLine(e.aggregates.usage)}
        </p>
      ) : null}
      <section className="exp__charts" aria-label="Aggregates">
        <AssertionBars assertions={e.aggregates.assertions} />
        <HistogramChart
          title={`Latency (p50 ${e.aggregates.latency.p50 ?? '–'} ms, p95 ${e.aggregates.latency.p95 ?? '–'} ms)`}
          histogram={e.aggregates.latency.histogram}
          unit=" ms"
          testId="latency-histogram"
        />
        {e.aggregates.evaluators.map((ev) => (
          <HistogramChart
            key={ev.evaluator}
            title={`Score: ${ev.evaluator} (mean ${ev.mean === null ? '–' : ev.mean.toFixed(2)})`}
            histogram={ev.histogram}
            testId="score-histogram"
          />
        ))}
        <TrendChart experiments={trend.data ?? []} current={e.experiment_id} onOpen={openExperiment} />
      </section>
      <Filters e={e} tags={tags} show={show} setShow={setShow} tag={tag} setTag={setTag} since={since} setSince={setSince} />
      {cases.isError ? <p className="field-error">Could not load the case results: {errorMessage(cases.error)}</p> : null}
      {all ? <CaseResults cases={shown} total={all.length} /> : <p className="muted">Loading the case results…</p>}
    </article>
  );
}
