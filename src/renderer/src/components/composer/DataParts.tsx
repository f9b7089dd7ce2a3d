// Data parts as tabs. A tab's name is only a label (spec 2.6); a part started from a
// declared input contract gets the contract's `schema` id in its JSON draft.
import type { ComposerContract as InputContract } from '../../../../shared/composer-schema.ts';
import { contractSkeleton } from '../../lib/compose.ts';
import { useDraft } from '../../state/draft.ts';
import { useState } from 'react';
import { JsonEditor } from './JsonEditor.tsx';
import { ContractForm } from './ContractForm.tsx';

export function DataParts({
  contracts,
  contractsNote,
  onSubmit,
  invalidId,
  skillExamples,
}: {
  contracts: InputContract[];
  contractsNote?: string;
  onSubmit: () => void;
  invalidId?: string;
  skillExamples?: string[];
}) {
  const parts = useDraft((s) => s.dataParts);
  const activeId = useDraft((s) => s.activeDataId);
  const add = useDraft((s) => s.addDataPart);
  const update = useDraft((s) => s.updateDataPart);
  const remove = useDraft((s) => s.removeDataPart);
  const setActive = useDraft((s) => s.setActiveData);
  const active = parts.find((p) => p.id === activeId) ?? parts[0];
  const contractOf = (schema?: string) => contracts.find((c) => c.schema === schema);
  const [view, setView] = useState<'json' | 'form'>('json');
  const formContract = active?.contractSchema ? contractOf(active.contractSchema) : undefined;
  const canForm = Boolean(formContract?.json_schema && (formContract.json_schema as { properties?: unknown }).properties);

  return (
    <div className="dataparts" data-testid="data-parts">
      <div className="dataparts__bar">
        {parts.length > 0 ? (
          <div className="tabs" role="tablist" aria-label="Data parts">
            {parts.map((p) => (
              <div key={p.id} className={`tab${p.id === active?.id ? ' is-active' : ''}${p.id === invalidId ? ' is-invalid' : ''}`}>
                <button
                  type="button"
                  role="tab"
                  id={`tab-${p.id}`}
                  aria-selected={p.id === active?.id}
                  aria-controls={`panel-${p.id}`}
                  className="tab__label"
                  onClick={() => setActive(p.id)}
                  data-testid="data-part-tab"
                >
                  {p.label}
                </button>
                <button
                  type="button"
                  className="tab__close"
                  aria-label={`Remove data part ${p.label}`}
                  onClick={() => remove(p.id)}
                  data-testid="data-part-remove"
                >
                  ×
                </button>
              </div>
            ))}
          </div>
        ) : null}
        <div className="dataparts__add">
          {contracts.map((c) => (
            <button
              key={c.schema}
              type="button"
              className="btn btn--small"
              title={c.description ? `${c.description} (${c.schema})` : c.schema}
              onClick={() => add({ label: c.name, json: contractSkeleton(c), contractSchema: c.schema })}
              data-testid="add-contract-part"
              data-schema={c.schema}
            >
              + {c.name}
            </button>
          ))}
          <button
            type="button"
            className="btn btn--small btn--ghost"
            onClick={() => add({ label: `Data ${parts.length + 1}`, json: '{\n  \n}' })}
            data-testid="add-data-part"
          >
            + JSON data
          </button>
        </div>
      </div>
      {contractsNote ? <p className="hint">{contractsNote}</p> : null}
      {active ? (
        <div role="tabpanel" id={`panel-${active.id}`} aria-labelledby={`tab-${active.id}`} className="dataparts__panel">
          {active.contractSchema ? (
            <p className="hint">
              Contract <code>{active.contractSchema}</code>: its id stays in <code>data.schema</code> and the runtime validates the part before the graph runs.
            </p>
          ) : null}
          {canForm ? (
            <div className="segmented" role="group" aria-label="Edit as">
              {(['form', 'json'] as const).map((v) => (
                <button
                  key={v}
                  type="button"
                  className={`segmented__btn${view === v ? ' is-on' : ''}`}
                  aria-pressed={view === v}
                  onClick={() => setView(v)}
                  data-testid={`data-view-${v}-edit`}
                >
                  {v === 'form' ? 'Form' : 'JSON'}
                </button>
              ))}
            </div>
          ) : null}
          {canForm && view === 'form' ? (
            <ContractForm contract={formContract!} json={active.json} onChange={(v) => update(active.id, v)} />
          ) : (
            <JsonEditor
              key={active.id}
              modelId={active.id}
              value={active.json}
              onChange={(v) => update(active.id, v)}
              onSubmit={onSubmit}
              schema={contractOf(active.contractSchema)?.json_schema ?? undefined}
              schemaId={active.contractSchema}
              history={contractOf(active.contractSchema)?.history}
              skillExamples={skillExamples}
              label={`JSON of data part ${active.label}`}
              testId="data-part-editor"
            />
          )}
        </div>
      ) : null}
    </div>
  );
}
