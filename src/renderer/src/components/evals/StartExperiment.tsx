// Starting an experiment on a dataset (POST /experiments): all its cases or those with some
// tags or some ids, each repeated N times, at most C at once. On success the experiment opens
// and shows its progress.
import { useState } from 'react';
import type { Dataset } from '../../../../shared/datasets.ts';
import { errorMessage } from '../../api/client.ts';
import { useStartExperiment } from '../../api/experiments.ts';
import { useUi } from '../../state/ui.ts';

export function StartExperiment({ dataset }: { dataset: Dataset }) {
  const start = useStartExperiment();
  const openExperiment = useUi((s) => s.openExperiment);
  const [tags, setTags] = useState<string[]>([]);
  const [ids, setIds] = useState('');
  const [repeat, setRepeat] = useState(1);
  const [concurrency, setConcurrency] = useState(4);
  const allTags = [...new Set(dataset.cases.flatMap((c) => c.tags ?? []))].sort();
  const cases = ids
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const disabled = start.isPending || dataset.cases.length === 0;

  return (
    <form
      className="startexp"
      aria-label="Run an experiment"
      data-testid="start-experiment"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const r = await start.mutateAsync({
            dataset: dataset.name,
            ...(tags.length ? { tags } : {}),
            ...(cases.length ? { cases } : {}),
            repeat,
            concurrency,
          });
          openExperiment(r.experiment_id);
        } catch {
          // shown below
        }
      }}
    >
      <h2 className="subhead">Run an experiment</h2>
      {allTags.length ? (
        <fieldset className="startexp__tags">
          <legend className="field__label">Only cases tagged (none ticked: every case)</legend>
          {allTags.map((t) => (
            <label key={t} className="check">
              <input type="checkbox" checked={tags.includes(t)} onChange={(e) => setTags((v) => (e.target.checked ? [...v, t] : v.filter((x) => x !== t)))} />{' '}
              {t}
            </label>
          ))}
        </fieldset>
      ) : null}
      <div className="startexp__row">
        <label className="field">
          <span className="field__label">Only these case ids (optional)</span>
          <input
            className="input input--small"
            value={ids}
            onChange={(e) => setIds(e.target.value)}
            placeholder="id-one, id-two"
            data-testid="start-experiment-cases"
          />
        </label>
        <label className="field">
          <span className="field__label">Repeat each case</span>
          <input
            className="input input--small"
            type="number"
            min={1}
            max={20}
            value={repeat}
            onChange={(e) => setRepeat(Math.max(1, Math.min(20, Number(e.target.value) || 1)))}
            data-testid="start-experiment-repeat"
          />
        </label>
        <label className="field">
          <span className="field__label">At most at once</span>
          <input
            className="input input--small"
            type="number"
            min={1}
            max={16}
            value={concurrency}
            onChange={(e) => setConcurrency(Math.max(1, Math.min(16, Number(e.target.value) || 1)))}
            data-testid="start-experiment-concurrency"
          />
        </label>
        <button type="submit" className="btn btn--primary" disabled={disabled} data-testid="start-experiment-submit">
          {start.isPending ? 'Starting…' : 'Run experiment'}
        </button>
      </div>
      {dataset.cases.length === 0 ? <p className="muted small">This dataset has no cases yet: add one from a run (“Add to dataset”).</p> : null}
      {start.isError ? (
        <p className="field-error" role="alert" data-testid="start-experiment-error">
          {errorMessage(start.error)}
        </p>
      ) : null}
    </form>
  );
}
