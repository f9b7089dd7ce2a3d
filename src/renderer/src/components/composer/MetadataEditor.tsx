// Request metadata (spec 2.5): userId, the observation labels, and any extra keys (values
// typed as JSON become numbers or booleans: scriptedDelayMs = 200).
import { useDraft, type LabelKey } from '../../state/draft.ts';

/** Ids on one row, their display names under them. */
const LABEL_ORDER: LabelKey[] = ['agentId', 'workflowId', 'chatbotId', 'agentName', 'workflowName', 'chatbotName'];

export function MetadataEditor() {
  const userId = useDraft((s) => s.userId);
  const labels = useDraft((s) => s.labels);
  const extra = useDraft((s) => s.extra);
  const setUserId = useDraft((s) => s.setUserId);
  const setLabel = useDraft((s) => s.setLabel);
  const addExtra = useDraft((s) => s.addExtra);
  const updateExtra = useDraft((s) => s.updateExtra);
  const removeExtra = useDraft((s) => s.removeExtra);

  return (
    <div className="metadata" data-testid="metadata-editor">
      <div className="metadata__grid">
        <label className="field">
          <span className="field__label">userId</span>
          <input className="input input--small" value={userId} onChange={(e) => setUserId(e.target.value)} placeholder="user-42" data-testid="meta-userId" />
        </label>
        {LABEL_ORDER.map((k, i) => (
          <label key={k} className={`field${i === 0 ? ' field--row-start' : ''}`}>
            <span className="field__label">{k}</span>
            <input className="input input--small" value={labels[k]} onChange={(e) => setLabel(k, e.target.value)} data-testid={`meta-${k}`} />
          </label>
        ))}
      </div>
      <p className="hint">Observation labels group traces; they do not change what the agent does.</p>
      <fieldset className="metadata__extra">
        <legend className="field__label">Other keys</legend>
        {extra.map((e, i) => (
          <div key={e.id} className="kv" data-testid="meta-extra-row">
            <input
              className="input input--small"
              aria-label={`Key ${i + 1}`}
              placeholder="key"
              value={e.key}
              onChange={(ev) => updateExtra(e.id, { key: ev.target.value })}
              data-testid="meta-extra-key"
            />
            <input
              className="input input--small"
              aria-label={`Value ${i + 1}`}
              placeholder="value (JSON or text)"
              value={e.value}
              onChange={(ev) => updateExtra(e.id, { value: ev.target.value })}
              data-testid="meta-extra-value"
            />
            <button type="button" className="iconbtn" aria-label={`Remove key ${e.key || i + 1}`} onClick={() => removeExtra(e.id)}>
              ×
            </button>
          </div>
        ))}
        <button type="button" className="btn btn--small btn--ghost" onClick={addExtra} data-testid="meta-add-extra">
          + Add key
        </button>
      </fieldset>
    </div>
  );
}
