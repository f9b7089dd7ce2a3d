// "Add to dataset" (docs/studio-ui.md, Evals): from a run or a conversation turn, two clicks:
// this button, then Add (the dataset last used is picked; a new one can be named). The case is
// built by the studio (POST /datasets/{name}/cases): the input, the conversation before it and
// the output as the reference. Then the case opens at its line, or its reference is loosened
// into assertions (Loosen.tsx).
import { useState } from 'react';
import type { AddCaseReply } from '../../../../shared/experiments.ts';
import { errorMessage } from '../../api/client.ts';
import { useAddCase, useCreateDataset, useDatasets } from '../../api/experiments.ts';
import { useUi } from '../../state/ui.ts';
import { Modal } from '../Modal.tsx';
import { Loosen } from './Loosen.tsx';

const LAST = 'agent-studio.last-dataset';
const NEW = '\u0000new';

function lastDataset(): string | null {
  try {
    return localStorage.getItem(LAST);
  } catch {
    return null;
  }
}

function Added({ added, onClose }: { added: AddCaseReply; onClose: () => void }) {
  const openSource = useUi((s) => s.openSource);
  const openDataset = useUi((s) => s.openDataset);
  return (
    <div data-testid="add-case-done" data-case-id={added.case.id} data-line={added.line}>
      <p role="status">
        Added as case <code>{added.case.id}</code> at{' '}
        <code>
          {added.file}:{added.line}
        </code>
        , expecting this run’s output as its reference.
      </p>
      <div className="actions">
        <button
          type="button"
          className="btn"
          onClick={() => {
            onClose();
            openSource({ file: added.file, line: added.line });
          }}
          data-testid="add-case-open-line"
        >
          Open it at its line
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => {
            onClose();
            openDataset(added.dataset);
          }}
          data-testid="add-case-open-dataset"
        >
          Open the dataset
        </button>
        <button type="button" className="btn btn--ghost" onClick={onClose}>
          Close
        </button>
      </div>
      <Loosen added={added} />
    </div>
  );
}

function AddForm({ runId, onAdded, onCancel }: { runId: string; onAdded: (r: AddCaseReply) => void; onCancel: () => void }) {
  const datasets = useDatasets();
  const add = useAddCase();
  const create = useCreateDataset();
  const names = datasets.data?.items.map((d) => d.name) ?? [];
  const preferred = lastDataset();
  const [picked, setPicked] = useState<string | null>(null);
  const choice = picked ?? (preferred && names.includes(preferred) ? preferred : (names[0] ?? NEW));
  const [newName, setNewName] = useState('');
  const [caseId, setCaseId] = useState('');
  const busy = add.isPending || create.isPending;
  const error = create.error ?? add.error;
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const dataset = choice === NEW ? (await create.mutateAsync({ name: newName.trim() })).name : choice;
          const r = await add.mutateAsync({ dataset, body: { run_id: runId, ...(caseId.trim() ? { case_id: caseId.trim() } : {}) } });
          try {
            localStorage.setItem(LAST, dataset);
          } catch {
            // storage off: no memory of the choice
          }
          onAdded(r);
        } catch {
          // shown below
        }
      }}
    >
      <label className="field">
        <span className="field__label">Dataset</span>
        <select className="input" value={choice} onChange={(e) => setPicked(e.target.value)} data-testid="add-case-dataset" autoFocus>
          {names.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
          <option value={NEW}>New dataset…</option>
        </select>
      </label>
      {choice === NEW ? (
        <label className="field">
          <span className="field__label">New dataset name (its file: evals/NAME.jsonl)</span>
          <input className="input" value={newName} onChange={(e) => setNewName(e.target.value)} required data-testid="add-case-new-name" />
        </label>
      ) : null}
      <label className="field">
        <span className="field__label">Case id (optional: made from the input’s first words)</span>
        <input className="input" value={caseId} onChange={(e) => setCaseId(e.target.value)} data-testid="add-case-id" />
      </label>
      {error ? (
        <p className="field-error" role="alert" data-testid="add-case-error">
          {errorMessage(error)}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" className="btn btn--primary" disabled={busy || (choice === NEW && !newName.trim())} data-testid="add-case-confirm">
          {busy ? 'Adding…' : 'Add'}
        </button>
        <button type="button" className="btn btn--ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function AddToDataset({ runId, small = false }: { runId: string; small?: boolean }) {
  const [open, setOpen] = useState(false);
  const [added, setAdded] = useState<AddCaseReply | null>(null);
  const close = () => {
    setOpen(false);
    setAdded(null);
  };
  return (
    <>
      <button
        type="button"
        className={small ? 'linkbtn small' : 'btn btn--ghost'}
        onClick={() => setOpen(true)}
        data-testid="add-to-dataset"
        title="Make this run a test case of a dataset: its input, the conversation before it, and its output as the reference"
      >
        Add to dataset
      </button>
      <Modal open={open} title="Add this run to a dataset" onClose={close} testId="add-case-dialog" wide={added !== null}>
        {added ? <Added added={added} onClose={close} /> : <AddForm runId={runId} onAdded={setAdded} onCancel={close} />}
      </Modal>
    </>
  );
}
