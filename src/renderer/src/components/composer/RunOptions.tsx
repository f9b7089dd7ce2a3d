// The project's run options (manifest `runOptions`): one field each, starting from its
// default, sent as request metadata with the run (docs/project-format.md "Run options"); and
// the per-run step mode (debug, not metadata).
import type { RunOption } from '../../../../shared/composer-schema.ts';
import { runOptionText } from '../../lib/run-options.ts';
import { useDraft } from '../../state/draft.ts';

export function RunOptionFields({ options }: { options: readonly RunOption[] }) {
  const typed = useDraft((s) => s.runOptions);
  const setRunOption = useDraft((s) => s.setRunOption);
  if (!options.length) return null;
  return (
    <fieldset className="run-options" data-testid="run-options">
      <legend className="field__label">Run options</legend>
      {options.map((o) => {
        const value = runOptionText(o, typed);
        const hint = [o.description, o.min !== undefined ? `min ${o.min}` : '', o.max !== undefined ? `max ${o.max}` : ''].filter(Boolean).join(' · ');
        return (
          <label key={o.name} className="field run-options__field" title={hint || undefined}>
            <span className="field__label">{o.name}</span>
            {o.type === 'boolean' ? (
              <input
                type="checkbox"
                checked={value === 'true'}
                onChange={(e) => setRunOption(o.name, String(e.target.checked))}
                data-testid={`run-option-${o.name}`}
              />
            ) : (
              <input
                className="input input--small"
                type={o.type === 'string' ? 'text' : 'number'}
                inputMode={o.type === 'integer' ? 'numeric' : undefined}
                step={o.type === 'integer' ? 1 : 'any'}
                min={o.min}
                max={o.max}
                value={value}
                onChange={(e) => setRunOption(o.name, e.target.value)}
                aria-description={hint || undefined}
                data-testid={`run-option-${o.name}`}
              />
            )}
          </label>
        );
      })}
    </fieldset>
  );
}

/** Per-run step mode (docs/playground-api.md, "Per-run step mode"): the next run pauses before
 * every node, without a session breakpoint; Step goes on node by node, Continue to the end. */
export function StepRunToggle({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  return (
    <label className="composer__step" title="This run only: pause before every node (Step goes on node by node)">
      <input type="checkbox" checked={on} onChange={(e) => onChange(e.target.checked)} data-testid="run-step-mode" /> Pause before every node
    </label>
  );
}
