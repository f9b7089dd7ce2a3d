// The form view of a data part started from a contract: one field per property (enums as
// selects, required ones marked, defaults offered), editing the same JSON draft as the JSON
// view, so the two always agree.
import type { ComposerContract as InputContract } from '../../../../shared/composer-schema.ts';
import { formFields, parseInput, readObject, writeField, type FormField } from '../../lib/contract-form.ts';

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function FieldInput({ field, value, onChange }: { field: FormField; value: unknown; onChange: (v: unknown) => void }) {
  const id = `form-${field.name}`;
  const common = { id, 'data-testid': 'form-field', 'data-field': field.name, 'aria-required': field.required } as const;
  if (field.kind === 'const') return <code {...common}>{show(value)}</code>;
  if (field.kind === 'enum') {
    return (
      <select
        className="input input--small"
        {...common}
        value={value === undefined ? '' : show(value)}
        onChange={(e) => onChange(e.target.value === '' ? undefined : field.options!.find((o) => show(o) === e.target.value))}
      >
        <option value="">{field.required ? 'Choose…' : '(none)'}</option>
        {field.options!.map((o) => (
          <option key={show(o)} value={show(o)}>
            {show(o)}
            {field.default !== undefined && show(o) === show(field.default) ? ' (default)' : ''}
          </option>
        ))}
      </select>
    );
  }
  if (field.kind === 'boolean') return <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
  if (field.kind === 'other') return <code {...common}>{value === undefined ? '(edit in JSON)' : show(value).slice(0, 80)}</code>;
  return (
    <input
      className="input input--small"
      type={field.kind === 'string' ? 'text' : 'number'}
      {...common}
      value={value === undefined ? '' : show(value)}
      placeholder={field.default !== undefined ? `default: ${show(field.default)}` : undefined}
      onChange={(e) => onChange(parseInput(field.kind, e.target.value))}
    />
  );
}

export function ContractForm({ contract, json, onChange }: { contract: InputContract; json: string; onChange: (json: string) => void }) {
  const fields = formFields(contract.json_schema ?? undefined);
  const obj = readObject(json);
  if (!obj)
    return (
      <p className="hint" data-testid="form-unreadable">
        The JSON does not parse yet: fix it in the JSON view, then the form follows.
      </p>
    );
  return (
    <div className="contract-form" data-testid="contract-form">
      {fields.map((f) => (
        <div key={f.name} className="contract-form__row">
          <label htmlFor={`form-${f.name}`} className="contract-form__label" title={f.description}>
            {f.name}
            {f.required ? <span aria-hidden="true"> *</span> : null}
          </label>
          <FieldInput field={f} value={obj[f.name]} onChange={(v) => onChange(writeField(json, f.name, v) ?? json)} />
        </div>
      ))}
    </div>
  );
}
