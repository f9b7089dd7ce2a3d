// Turns the composer draft into a run-creation body (spec 4.3): tagged input parts and the
// request metadata (spec 2.5: userId and the observation labels go in params.metadata).
import type { InputPart } from '../../../shared/playground.ts';
import type { ComposerContract as InputContract } from '../../../shared/composer-schema.ts';
import { LABEL_KEYS, type DataDraft, type ExtraMetadata, type FileDraft, type LabelKey } from '../state/draft.ts';

export interface ComposeInput {
  text: string;
  dataParts: DataDraft[];
  files: FileDraft[];
  userId: string;
  labels: Record<LabelKey, string>;
  extra: ExtraMetadata[];
}

export type ComposeResult = { ok: true; parts: InputPart[]; metadata: Record<string, unknown> } | { ok: false; problems: string[]; dataPartId?: string };

/** A value typed in the metadata editor: JSON when it parses (200, true, {"a":1}), else text. */
export function parseMetadataValue(raw: string): unknown {
  const t = raw.trim();
  if (t === '') return '';
  try {
    return JSON.parse(t);
  } catch {
    return raw;
  }
}

export function compose(input: ComposeInput): ComposeResult {
  const parts: InputPart[] = [];
  const problems: string[] = [];
  let badDataId: string | undefined;

  if (input.text.trim()) parts.push({ kind: 'text', text: input.text });

  for (const d of input.dataParts) {
    let value: unknown;
    try {
      value = JSON.parse(d.json);
    } catch (err) {
      problems.push(`${d.label}: not valid JSON (${(err as Error).message})`);
      badDataId ??= d.id;
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push(`${d.label}: a data part must be a JSON object`);
      badDataId ??= d.id;
      continue;
    }
    const data = value as Record<string, unknown>;
    // spec 2.6: the declared contract's id goes into data.schema, inserted for the user.
    if (d.contractSchema && data.schema === undefined) data.schema = d.contractSchema;
    parts.push({ kind: 'data', data });
  }

  for (const f of input.files) {
    if (f.source === 'uri') parts.push({ kind: 'file', uri: f.uri });
    else parts.push({ kind: 'file', name: f.name, mime_type: f.mime_type || 'application/octet-stream', bytes_base64: f.bytes_base64 });
  }

  const metadata: Record<string, unknown> = {};
  if (input.userId.trim()) metadata.userId = input.userId.trim();
  for (const k of LABEL_KEYS) if (input.labels[k].trim()) metadata[k] = input.labels[k].trim();
  for (const e of input.extra) {
    const key = e.key.trim();
    if (!key) continue;
    if (key === 'svc.playground') {
      problems.push('The metadata key svc.playground is reserved for the studio.');
      continue;
    }
    metadata[key] = parseMetadataValue(e.value);
  }

  if (parts.length === 0 && problems.length === 0) problems.push('Write a message, add a data part or attach a file first.');
  if (problems.length) return { ok: false, problems, dataPartId: badDataId };
  return { ok: true, parts, metadata };
}

/** A starting JSON draft for a contract: its schema id plus the required fields, pre-filled. */
export function contractSkeleton(contract: InputContract): string {
  const draft: Record<string, unknown> = { schema: contract.schema };
  const js = contract.json_schema;
  const props = (js?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(js?.required) ? (js!.required as string[]) : [];
  for (const key of required) {
    if (key === 'schema') continue;
    draft[key] = exampleValue(props[key]);
  }
  return JSON.stringify(draft, null, 2);
}

function exampleValue(prop: Record<string, unknown> | undefined): unknown {
  if (!prop) return '';
  if ('const' in prop) return prop.const;
  if (Array.isArray(prop.enum) && prop.enum.length) return prop.enum[0];
  if ('default' in prop) return prop.default;
  switch (prop.type) {
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return '';
  }
}
