// Loosening a new case's reference into assertions: the exact-reference check is strict (a
// reworded answer fails it), so the author can keep the parts that matter instead: a phrase
// the text must contain, and the values of the data's fields (text_contains,
// json_path_equals; docs/evaluation.md). The case's line is rewritten through the source
// view's save path (POST /api/save, conflict-checked against the file as read).
import { useState } from 'react';
import type { Assertion, DatasetCase } from '../../../../shared/datasets.ts';
import { loosened, suggestions, type Choice } from '../../lib/loosen.ts';
import type { AddCaseReply } from '../../../../shared/experiments.ts';
import { errorMessage } from '../../api/client.ts';
import { fetchProjectFile, useSaveFile } from '../../api/project.ts';

export function Loosen({ added }: { added: AddCaseReply }) {
  const [choices, setChoices] = useState<Choice[]>(() => suggestions(added.case));
  const [keepReference, setKeepReference] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const save = useSaveFile();
  if (choices.length === 0) return null;

  const apply = async () => {
    setError(null);
    try {
      const file = await fetchProjectFile(added.file);
      const lines = file.content.split('\n');
      const at = lines.findIndex((l) => {
        try {
          return (JSON.parse(l) as { id?: unknown }).id === added.case.id;
        } catch {
          return false;
        }
      });
      if (at < 0) throw new Error(`case ${added.case.id} is no longer in ${added.file}`);
      const current = JSON.parse(lines[at]) as DatasetCase;
      lines[at] = JSON.stringify(
        loosened(
          current,
          choices.filter((c) => c.on).map((c) => c.assertion),
          keepReference,
        ),
      );
      await save.mutateAsync({ path: added.file, content: lines.join('\n'), base_sha256: file.sha256 });
      setDone(true);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <fieldset className="loosen" data-testid="loosen">
      <legend className="subhead">Loosen the reference into assertions</legend>
      <p className="muted small">The exact reference fails on any rewording. Keep only what matters (edit the values):</p>
      <ul className="loosen__list">
        {choices.map((c, i) => (
          <li key={i} className="loosen__item">
            <label className="check">
              <input
                type="checkbox"
                checked={c.on}
                onChange={(e) => setChoices((v) => v.map((x, j) => (j === i ? { ...x, on: e.target.checked } : x)))}
                data-testid="loosen-choice"
              />{' '}
              {c.label}
            </label>
            <input
              className="input input--small"
              aria-label={`${c.label}: value`}
              value={c.assertion.type === 'text_contains' ? c.assertion.value : JSON.stringify((c.assertion as { value: unknown }).value)}
              onChange={(e) =>
                setChoices((v) =>
                  v.map((x, j) => {
                    if (j !== i) return x;
                    if (x.assertion.type === 'text_contains') return { ...x, assertion: { ...x.assertion, value: e.target.value } };
                    let value: unknown = e.target.value;
                    try {
                      value = JSON.parse(e.target.value);
                    } catch {
                      // a bare string
                    }
                    return { ...x, assertion: { ...x.assertion, value } as Assertion };
                  }),
                )
              }
              data-testid="loosen-value"
            />
          </li>
        ))}
      </ul>
      <label className="check">
        <input type="checkbox" checked={keepReference} onChange={(e) => setKeepReference(e.target.checked)} data-testid="loosen-keep-reference" /> Also keep the
        exact reference check
      </label>
      <div className="actions">
        <button type="button" className="btn btn--primary" disabled={save.isPending || done} onClick={() => void apply()} data-testid="loosen-save">
          {done ? 'Saved' : save.isPending ? 'Saving…' : 'Save these assertions'}
        </button>
        {done ? (
          <span role="status" className="small" data-testid="loosen-saved">
            Saved to {added.file}.
          </span>
        ) : null}
        {error ? (
          <span className="field-error" role="alert">
            {error}
          </span>
        ) : null}
      </div>
    </fieldset>
  );
}
