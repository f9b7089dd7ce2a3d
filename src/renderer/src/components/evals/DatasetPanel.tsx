// One dataset (docs/studio-ui.md, Evals): its file (opened in the source view to edit, the
// same save path), its diagnostics at file:line, its cases, the form that runs it, and its
// experiments with their trend.
import type { Dataset, DatasetCase } from '../../../../shared/datasets.ts';
import { errorMessage } from '../../api/client.ts';
import { useDataset, useExperiments } from '../../api/experiments.ts';
import { fetchProjectFile } from '../../api/project.ts';
import { formatDateTime, shortHash } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import { TrendChart } from './Charts.tsx';
import { StartExperiment } from './StartExperiment.tsx';

export function inputPreview(c: DatasetCase): string {
  if (c.input.text !== undefined) return c.input.text;
  return (c.input.parts ?? [])
    .map((p) => (p.kind === 'text' ? p.text : p.kind === 'data' ? JSON.stringify(p.data) : `[file ${p.name ?? p.path ?? p.uri ?? ''}]`))
    .join(' ');
}

/** The 1-based line of case `id` in the dataset file (each case is one JSON line). */
export async function caseLine(file: string, id: string): Promise<number | undefined> {
  const { content } = await fetchProjectFile(file);
  const lines = content.split('\n');
  for (let i = 0; i < lines.length; i++) {
    try {
      if ((JSON.parse(lines[i]) as { id?: unknown }).id === id) return i + 1;
    } catch {
      // not a case line
    }
  }
  return undefined;
}

function Diagnostics({ d }: { d: Dataset }) {
  const openSource = useUi((s) => s.openSource);
  if (d.diagnostics.length === 0) return null;
  return (
    <div className="banner banner--danger" role="alert" data-testid="dataset-diagnostics">
      <strong>
        {d.diagnostics.length} line{d.diagnostics.length === 1 ? '' : 's'} of this file {d.diagnostics.length === 1 ? 'is' : 'are'} left out:
      </strong>
      <ul>
        {d.diagnostics.map((x, i) => (
          <li key={i}>
            <button
              type="button"
              className="linkbtn"
              onClick={() => openSource({ file: x.file, line: x.line, column: x.column })}
              data-testid="dataset-diagnostic"
            >
              <code>{`${x.file}${x.line ? `:${x.line}` : ''}${x.column ? `:${x.column}` : ''}`}</code>
            </button>{' '}
            {x.field ? <code>[{x.field}]</code> : null} {x.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Cases({ d }: { d: Dataset }) {
  const openSource = useUi((s) => s.openSource);
  if (d.cases.length === 0) return <p className="muted">No cases yet. Open a run and use “Add to dataset”, or write them in the file.</p>;
  return (
    <div className="dataset__cases">
      <table className="table table--compact" data-testid="dataset-cases">
        <caption className="visually-hidden">Cases of {d.name}</caption>
        <thead>
          <tr>
            <th scope="col">Case</th>
            <th scope="col">Input</th>
            <th scope="col">Tags</th>
            <th scope="col">Assertions</th>
            <th scope="col">Reference</th>
          </tr>
        </thead>
        <tbody>
          {d.cases.map((c) => (
            <tr key={c.id} data-testid="dataset-case" data-case-id={c.id}>
              <th scope="row">
                <button
                  type="button"
                  className="linkbtn"
                  title="Open this case in the dataset file"
                  onClick={async () => openSource({ file: d.file, line: await caseLine(d.file, c.id).catch(() => undefined) })}
                >
                  <code>{c.id}</code>
                </button>
              </th>
              <td className="dataset__input" title={inputPreview(c)}>
                {c.history?.length ? <span className="muted">({c.history.length} earlier turns) </span> : null}
                {inputPreview(c).slice(0, 160)}
              </td>
              <td>{(c.tags ?? []).join(', ')}</td>
              <td data-testid="dataset-case-assertions">{c.expected?.assertions?.length ?? 0}</td>
              <td>{c.expected?.output ? 'yes' : <span className="muted">no</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Experiments({ dataset }: { dataset: string }) {
  const q = useExperiments(dataset);
  const openExperiment = useUi((s) => s.openExperiment);
  const openCompare = useUi((s) => s.openExperimentCompare);
  const items = q.data ?? [];
  if (items.length === 0) return <p className="muted small">No experiment on this dataset yet.</p>;
  return (
    <>
      <TrendChart experiments={items} onOpen={openExperiment} />
      <table className="table table--compact" data-testid="dataset-experiments">
        <caption className="visually-hidden">Experiments on {dataset}, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Status</th>
            <th scope="col">Passed</th>
            <th scope="col">Code</th>
            <th scope="col">Compare</th>
          </tr>
        </thead>
        <tbody>
          {items.map((e, i) => (
            <tr key={e.experiment_id} data-testid="dataset-experiment" data-experiment-id={e.experiment_id} data-status={e.status}>
              <th scope="row">
                <button type="button" className="linkbtn" onClick={() => openExperiment(e.experiment_id)} data-testid="dataset-experiment-open">
                  {formatDateTime(e.created_at)}
                </button>
              </th>
              <td>
                <span className={`expstatus expstatus--${e.status}`}>{e.status}</span>
              </td>
              <td>
                {e.pass_rate === null ? '–' : `${Math.round(e.pass_rate * 100)} %`}{' '}
                <span className="muted small">
                  ({e.counts.passed}/{e.counts.total})
                </span>
              </td>
              <td>
                <code className="small">{e.code_fingerprint ? shortHash(e.code_fingerprint) : '–'}</code>
              </td>
              <td>
                {items[i + 1] ? (
                  <button
                    type="button"
                    className="btn btn--small btn--ghost"
                    onClick={() => openCompare(items[i + 1].experiment_id, e.experiment_id)}
                    data-testid="dataset-experiment-compare"
                    aria-label={`Compare the experiment of ${formatDateTime(e.created_at)} with the one before it`}
                  >
                    with the previous
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function DatasetPanel({ name }: { name: string }) {
  const q = useDataset(name);
  const openSource = useUi((s) => s.openSource);
  const d = q.data;
  if (q.isPending) return <p className="muted">Loading the dataset…</p>;
  if (q.isError || !d) return <p className="field-error">Could not load the dataset: {errorMessage(q.error)}</p>;
  return (
    <article className="dataset" aria-labelledby="dataset-title" data-testid="dataset-view" data-dataset={d.name} data-cases={d.cases.length}>
      <header className="exp__header">
        <h1 className="exp__title" id="dataset-title">
          {d.name}
        </h1>
        <p className="small">
          <button type="button" className="linkbtn" onClick={() => openSource({ file: d.file })} data-testid="dataset-open-file">
            <code>{d.file}</code>
          </button>{' '}
          · {d.cases.length} case{d.cases.length === 1 ? '' : 's'} · version {shortHash(d.hash)}
          {d.description ? ` · ${d.description}` : ''}
        </p>
      </header>
      <Diagnostics d={d} />
      <StartExperiment dataset={d} />
      <section aria-labelledby="dataset-experiments-title">
        <h2 className="subhead" id="dataset-experiments-title">
          Experiments
        </h2>
        <Experiments dataset={d.name} />
      </section>
      <section aria-labelledby="dataset-cases-title">
        <h2 className="subhead" id="dataset-cases-title">
          Cases
        </h2>
        <Cases d={d} />
      </section>
    </article>
  );
}
