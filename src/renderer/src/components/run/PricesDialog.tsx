// The project's model prices (docs/studio-ui.md, "Tokens and cost"; docs/project-format.md,
// "pricing"): the table of agent.json's `pricing`, with a row to fill for each model a run
// used that no table prices and the built-in prices to override, saved into agent.json
// through the save path (its conflict check included). Like any manifest change the save
// reloads the runtime; runs from then on are priced with the new table.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { DEFAULT_PRICES, DEFAULT_PRICES_AS_OF } from '../../../../shared/pricing.ts';
import { errorMessage } from '../../api/client.ts';
import { fetchProjectFile, projectKeys, useSaveFile } from '../../api/project.ts';
import { PRICE_FIELDS, pricingOf, readPricing, rowsOf, writePricing, type PriceRow } from '../../lib/pricing-edit.ts';
import { Modal } from '../Modal.tsx';

const MANIFEST = 'agent.json';
const LABELS: Record<(typeof PRICE_FIELDS)[number], string> = {
  input: 'Input',
  output: 'Output',
  cachedInput: 'Cached input',
  cacheWrite: 'Cache write',
};
const blank = (model = ''): PriceRow => ({ model, input: '', output: '', cachedInput: '', cacheWrite: '' });

/** "Prices…" beside a run's tokens and cost; `unpriced`: the models the run used that no
 * table prices, offered as rows to fill. */
export function PricesButton({ unpriced }: { unpriced: string[] }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="btn btn--small btn--ghost" data-testid="open-prices" onClick={() => setOpen(true)}>
        {unpriced.length ? 'Set prices…' : 'Prices…'}
      </button>
      <Modal open={open} title="Model prices" onClose={() => setOpen(false)} testId="prices-dialog" wide>
        <PricesForm unpriced={unpriced} onDone={() => setOpen(false)} />
      </Modal>
    </>
  );
}

function PricesForm({ unpriced, onDone }: { unpriced: string[]; onDone: () => void }) {
  const file = useQuery({ queryKey: projectKeys.file(MANIFEST), queryFn: ({ signal }) => fetchProjectFile(MANIFEST, undefined, signal), staleTime: 0 });
  if (file.isPending) return <p className="muted">Reading agent.json…</p>;
  if (file.error) return <p className="form-error">{errorMessage(file.error)}</p>;
  const read = readPricing(file.data.content);
  if ('error' in read)
    return (
      <p className="form-error" data-testid="prices-error">
        {read.error}
      </p>
    );
  const initial = [...rowsOf(read.pricing), ...unpriced.filter((m) => !(m in read.pricing)).map((m) => blank(m)), blank()];
  return <PricesTable key={file.data.sha256} content={file.data.content} sha256={file.data.sha256} initial={initial} onDone={onDone} />;
}

function PricesTable({ content, sha256, initial, onDone }: { content: string; sha256: string; initial: PriceRow[]; onDone: () => void }) {
  const [rows, setRows] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useSaveFile();
  const set = (i: number, patch: Partial<PriceRow>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const submit = () => {
    const out = pricingOf(rows);
    if ('error' in out) return setProblem(out.error);
    setProblem(null);
    save.mutate({ path: MANIFEST, content: writePricing(content, out.pricing), base_sha256: sha256 }, { onSuccess: onDone });
  };
  const override = (model: string) => {
    const p = DEFAULT_PRICES[model]!;
    setRows((rs) => [...rs.filter((r) => r.model.trim() !== '' || PRICE_FIELDS.some((f) => r[f] !== '')), ...rowsOf({ [model]: p }), blank()]);
  };
  return (
    <form
      className="prices"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <p className="muted small">
        US dollars per million tokens, kept in <code>agent.json</code> under <code>pricing</code> over the built-in prices. A name also prices the dated and
        versioned names that start with it. Saving reloads the agent; runs from then on are priced with these (stored runs keep their cost). Cached input and
        cache write default to the input price.
      </p>
      <table className="prices__table" data-testid="prices-table">
        <thead>
          <tr>
            <th scope="col">Model</th>
            {PRICE_FIELDS.map((f) => (
              <th scope="col" key={f}>
                {LABELS[f]}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} data-testid="price-row" data-model={r.model}>
              <td>
                <input className="input" aria-label="Model" value={r.model} placeholder="model name" onChange={(e) => set(i, { model: e.target.value })} />
              </td>
              {PRICE_FIELDS.map((f) => (
                <td key={f}>
                  <input
                    className="input"
                    inputMode="decimal"
                    aria-label={`${LABELS[f]} price of ${r.model || 'a new model'}`}
                    data-field={f}
                    value={r[f]}
                    onChange={(e) => set(i, { [f]: e.target.value })}
                  />
                </td>
              ))}
              <td>
                <button
                  type="button"
                  className="btn btn--small btn--ghost"
                  aria-label={`Remove ${r.model || 'this row'}`}
                  onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" className="btn btn--small" onClick={() => setRows((rs) => [...rs, blank()])}>
          Add a model
        </button>
      </div>
      <details className="prices__defaults">
        <summary>Built-in prices (list prices as of {DEFAULT_PRICES_AS_OF})</summary>
        <ul>
          {Object.entries(DEFAULT_PRICES).map(([model, p]) => (
            <li key={model}>
              <code>{model}</code> {p.input} in, {p.output} out{p.cachedInput !== undefined ? `, ${p.cachedInput} cached` : ''}{' '}
              <button type="button" className="btn btn--small btn--ghost" onClick={() => override(model)}>
                Override
              </button>
            </li>
          ))}
        </ul>
      </details>
      {problem || save.error ? (
        <p className="form-error" role="alert" data-testid="prices-error">
          {problem ?? saveError(save.error)}
        </p>
      ) : null}
      <div className="row">
        <button type="submit" className="btn" disabled={save.isPending} data-testid="prices-save">
          {save.isPending ? 'Saving…' : 'Save to agent.json'}
        </button>
        <button type="button" className="btn btn--ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function saveError(err: unknown): string {
  const status = (err as { status?: number } | null)?.status;
  return status === 409 ? 'agent.json changed on disk since this dialog opened: close it and open it again to edit the new version.' : errorMessage(err);
}
