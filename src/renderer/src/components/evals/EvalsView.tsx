// The Evals view (docs/studio-ui.md, Evals): the project's datasets (evals/*.jsonl) with their
// case counts and problems on the left; on the right the open dataset, experiment, or the
// compare of two experiments.
import { useState } from 'react';
import { errorMessage } from '../../api/client.ts';
import { useCreateDataset, useDatasets } from '../../api/experiments.ts';
import { useUi } from '../../state/ui.ts';
import { EmptyState } from '../EmptyState.tsx';
import { DatasetPanel } from './DatasetPanel.tsx';
import { ExperimentCompare } from './ExperimentCompare.tsx';
import { ExperimentView } from './ExperimentView.tsx';

function NewDataset() {
  const create = useCreateDataset();
  const openDataset = useUi((s) => s.openDataset);
  const [name, setName] = useState('');
  return (
    <form
      className="datasets__new"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const d = await create.mutateAsync({ name: name.trim() });
          setName('');
          openDataset(d.name);
        } catch {
          // shown below
        }
      }}
    >
      <input
        className="input input--small"
        value={name}
        onChange={(e) => setName(e.target.value)}
        placeholder="new-dataset"
        aria-label="New dataset name"
        data-testid="new-dataset-name"
      />
      <button type="submit" className="btn btn--small" disabled={!name.trim() || create.isPending} data-testid="new-dataset">
        Create
      </button>
      {create.isError ? (
        <p className="field-error small" role="alert">
          {errorMessage(create.error)}
        </p>
      ) : null}
    </form>
  );
}

function DatasetList() {
  const q = useDatasets();
  const current = useUi((s) => s.evalsDataset);
  const openDataset = useUi((s) => s.openDataset);
  return (
    <nav className="datasets" aria-label="Datasets" data-testid="dataset-list">
      <h2 className="sidebar__title datasets__title">Datasets</h2>
      {q.isPending ? <p className="sidebar__hint">Loading…</p> : null}
      {q.isError ? <p className="sidebar__hint sidebar__hint--error">Could not list the datasets: {errorMessage(q.error)}</p> : null}
      {q.data && q.data.items.length === 0 ? (
        <p className="sidebar__hint" data-testid="datasets-empty">
          No dataset yet. A dataset is a file <code>evals/NAME.jsonl</code> of the project: create one here, or add a run to one from the run view.
        </p>
      ) : null}
      <ul className="datasets__list">
        {q.data?.items.map((d) => (
          <li key={d.name}>
            <button
              type="button"
              className={`datasets__item${d.name === current ? ' is-selected' : ''}`}
              aria-current={d.name === current ? 'true' : undefined}
              onClick={() => openDataset(d.name)}
              data-testid="dataset-item"
              data-dataset={d.name}
              data-cases={d.case_count}
            >
              <span className="datasets__name">{d.name}</span>
              <span className="datasets__meta">
                {d.case_count} case{d.case_count === 1 ? '' : 's'}
                {d.diagnostics_count ? (
                  <span className="pill pill--removed" data-testid="dataset-problems">
                    {d.diagnostics_count} problem{d.diagnostics_count === 1 ? '' : 's'}
                  </span>
                ) : null}
              </span>
              {d.description ? <span className="datasets__desc">{d.description}</span> : null}
            </button>
          </li>
        ))}
      </ul>
      <NewDataset />
    </nav>
  );
}

export function EvalsView() {
  const dataset = useUi((s) => s.evalsDataset);
  const experimentId = useUi((s) => s.experimentId);
  const left = useUi((s) => s.expLeft);
  const right = useUi((s) => s.expRight);
  return (
    <div className="evals" data-testid="evals-view">
      <DatasetList />
      <div className="evals__main">
        {left && right ? (
          <ExperimentCompare key={`${left}:${right}`} left={left} right={right} />
        ) : experimentId ? (
          <ExperimentView key={experimentId} id={experimentId} />
        ) : dataset ? (
          <DatasetPanel key={dataset} name={dataset} />
        ) : (
          <EmptyState icon="spark" title="Datasets and experiments" testId="evals-empty">
            <p>
              A dataset is a list of cases (an input and what is expected) kept with the code. Run it against the agent to see which cases pass, and compare two
              runs of it after a change.
            </p>
            <p className="muted">Pick a dataset on the left, or add a run to one with “Add to dataset” in the run view.</p>
          </EmptyState>
        )}
      </div>
    </div>
  );
}
