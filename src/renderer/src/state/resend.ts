// "Edit and resend": a run's input loaded back into the composer's draft, every part and
// the metadata, so a failed input is fixed and sent again in two clicks.
import type { RunDetail } from '../../../shared/playground.ts';
import { apiUrl } from '../api/client.ts';
import { draftId, LABEL_KEYS, useDraft, type DataDraft, type FileDraft, type LabelKey } from './draft.ts';

const label = (data: Record<string, unknown>, i: number) => (typeof data.schema === 'string' ? data.schema : `Data ${i + 1}`);

async function base64Of(sha256: string): Promise<string> {
  const res = await fetch(apiUrl(`/blobs/${sha256}`));
  if (!res.ok) throw new Error(`the stored file ${sha256.slice(0, 12)}… could not be read (${res.status})`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Replaces the draft with the run's input: text, data parts, files (stored bytes fetched
 * back), user id, labels and other metadata. */
export async function loadRunIntoDraft(run: RunDetail): Promise<void> {
  const text = run.input_parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n\n');
  const dataParts: DataDraft[] = run.input_parts
    .flatMap((p) => (p.kind === 'data' ? [p.data] : []))
    .map((data, i) => ({
      id: draftId('data'),
      label: label(data, i),
      json: JSON.stringify(data, null, 2),
      ...(typeof data.schema === 'string' ? { contractSchema: data.schema } : {}),
    }));
  const files: FileDraft[] = [];
  for (const p of run.input_parts) {
    if (p.kind !== 'file') continue;
    if (p.source === 'uri') files.push({ id: draftId('file'), source: 'uri', uri: p.uri });
    else
      files.push({
        id: draftId('file'),
        source: 'bytes',
        name: p.name ?? 'file',
        mime_type: p.mime_type ?? 'application/octet-stream',
        size: p.size,
        bytes_base64: await base64Of(p.sha256),
      });
  }
  const meta = { ...run.metadata };
  const userId = typeof meta.userId === 'string' ? meta.userId : '';
  delete meta.userId;
  const labels = Object.fromEntries(LABEL_KEYS.map((k) => [k, typeof meta[k] === 'string' ? (meta[k] as string) : ''])) as Record<LabelKey, string>;
  for (const k of LABEL_KEYS) if (typeof meta[k] === 'string') delete meta[k];
  const extra = Object.entries(meta).map(([key, value]) => ({ id: draftId('meta'), key, value: typeof value === 'string' ? value : JSON.stringify(value) }));
  useDraft.setState({ text, dataParts, activeDataId: dataParts[0]?.id ?? null, files, userId, labels, extra });
}
