// The top bar's "Connection" control (docs/studio-ui.md): whom the Playground calls the runtime
// as, the studio (its own credential, the default) or a credential the author gives (a header and
// its value), to try the project's authentication as a caller would. The value is typed once and
// sent once; the studio shows back only its header and a masked hint.
import { useState } from 'react';
import { errorMessage } from '../api/client.ts';
import { useConnection, useSaveConnection } from '../api/connection.ts';
import { Modal } from './Modal.tsx';

const PRESETS = ['X-API-Key', 'Authorization'] as const;
const CUSTOM = 'custom';

function ConnectionForm({ onClose }: { onClose: () => void }) {
  const current = useConnection().data;
  const save = useSaveConnection();
  const [mode, setMode] = useState<'studio' | 'credential'>(current?.header ? 'credential' : 'studio');
  const initialHeader = current?.header ?? 'X-API-Key';
  const preset = (PRESETS as readonly string[]).includes(initialHeader) ? initialHeader : CUSTOM;
  const [choice, setChoice] = useState<string>(preset);
  const [custom, setCustom] = useState(preset === CUSTOM ? initialHeader : '');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const header = choice === CUSTOM ? custom.trim() : choice;

  const submit = async () => {
    setError(null);
    try {
      if (mode === 'studio') await save.mutateAsync(null);
      else {
        if (!value.trim())
          throw new Error(current?.header ? 'Type the value again to change the credential, or Cancel to keep it.' : 'Give the value to send.');
        await save.mutateAsync({ header, value });
      }
      setValue('');
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <p className="dialog__body">
        Runs call the agent runtime as the studio, which may do anything. To try the project&rsquo;s authentication as a caller would, call it with a
        caller&rsquo;s credential: it is kept on this machine only, never in runs, bundles or logs.
      </p>
      <fieldset className="stack" data-testid="connection-mode">
        <legend className="field__label">Call the runtime as</legend>
        <label className="check">
          <input type="radio" name="connection-mode" checked={mode === 'studio'} onChange={() => setMode('studio')} data-testid="connection-studio" />
          the studio (default)
        </label>
        <label className="check">
          <input
            type="radio"
            name="connection-mode"
            checked={mode === 'credential'}
            onChange={() => setMode('credential')}
            data-testid="connection-credential"
          />
          a credential
        </label>
      </fieldset>
      {mode === 'credential' ? (
        <>
          <label className="field">
            <span className="field__label">Header</span>
            <select className="input" value={choice} onChange={(e) => setChoice(e.target.value)} data-testid="connection-header">
              <option value="X-API-Key">X-API-Key</option>
              <option value="Authorization">Authorization (Bearer &lt;key or JWT&gt;)</option>
              <option value={CUSTOM}>Another header…</option>
            </select>
          </label>
          {choice === CUSTOM ? (
            <label className="field">
              <span className="field__label">Header name</span>
              <input
                className="input"
                value={custom}
                onChange={(e) => setCustom(e.target.value)}
                autoComplete="off"
                spellCheck={false}
                data-testid="connection-custom"
              />
            </label>
          ) : null}
          <label className="field">
            <span className="field__label">Value{choice === 'Authorization' ? ' (Bearer <token>)' : ''}</span>
            <input
              className="input"
              type="password"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              placeholder={current?.hint ? `saved: ${current.hint}` : ''}
              aria-describedby={current?.hint ? 'connection-hint' : undefined}
              aria-invalid={error ? true : undefined}
              data-testid="connection-value"
            />
          </label>
          {current?.hint ? (
            <p id="connection-hint" className="muted small" data-testid="connection-hint">
              Saved: {current.header} {current.hint}
            </p>
          ) : null}
        </>
      ) : null}
      {error ? (
        <p className="field-error" role="alert" data-testid="connection-error">
          {error}
        </p>
      ) : null}
      <div className="dialog__actions">
        {current?.header ? (
          <button
            type="button"
            className="btn"
            disabled={save.isPending}
            onClick={() => void save.mutateAsync(null).then(onClose, (err) => setError(errorMessage(err)))}
            data-testid="connection-clear"
          >
            Clear
          </button>
        ) : null}
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn--primary" disabled={save.isPending} data-testid="connection-save">
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}

/** The top bar's button: shows whom runs call the runtime as, and opens the dialog. */
export function ConnectionControl() {
  const connection = useConnection().data;
  const [open, setOpen] = useState(false);
  const label = connection?.header ? `As ${connection.header} ${connection.hint ?? ''}`.trim() : 'As the studio';
  return (
    <>
      <button
        type="button"
        className="btn btn--small btn--ghost"
        onClick={() => setOpen(true)}
        title="Connection: whom the Playground calls the runtime as"
        aria-label={`Connection: ${label}`}
        data-testid="connection-button"
        data-connection={connection?.header ? 'credential' : 'studio'}
      >
        {label}
      </button>
      <Modal open={open} title="Connection" onClose={() => setOpen(false)} testId="connection-dialog">
        <ConnectionForm onClose={() => setOpen(false)} />
      </Modal>
    </>
  );
}
