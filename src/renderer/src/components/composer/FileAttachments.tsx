// Files: pick or drop to send the bytes, or give a URI (never downloaded by the studio).
import { useRef, useState } from 'react';
import { fileToBase64 } from '../../lib/base64.ts';
import { Icon } from '../Icon.tsx';
import { formatBytes } from '../../lib/format.ts';
import { draftId, useDraft, type FileDraft } from '../../state/draft.ts';

/** Inline bytes travel in the JSON body; past this size a URI is the better choice. */
const INLINE_WARN_BYTES = 10 * 1024 * 1024;

export async function filesToDrafts(list: FileList | File[]): Promise<FileDraft[]> {
  const out: FileDraft[] = [];
  for (const f of Array.from(list)) {
    out.push({
      id: draftId('file'),
      source: 'bytes',
      name: f.name,
      mime_type: f.type || 'application/octet-stream',
      size: f.size,
      bytes_base64: await fileToBase64(f),
    });
  }
  return out;
}

export function FileAttachments() {
  const files = useDraft((s) => s.files);
  const addFiles = useDraft((s) => s.addFiles);
  const removeFile = useDraft((s) => s.removeFile);
  const input = useRef<HTMLInputElement>(null);
  const [uri, setUri] = useState('');
  const [uriError, setUriError] = useState<string | null>(null);

  const addUri = () => {
    const v = uri.trim();
    try {
      const u = new URL(v);
      if (!/^[a-z][a-z0-9+.-]*:$/i.test(u.protocol)) throw new Error('bad scheme');
    } catch {
      setUriError('Enter an absolute URI, for example https://example.com/invoice.pdf');
      return;
    }
    addFiles([{ id: draftId('file'), source: 'uri', uri: v }]);
    setUri('');
    setUriError(null);
  };

  return (
    <div className="files" data-testid="file-attachments">
      <div className="files__row">
        <button type="button" className="btn btn--small" onClick={() => input.current?.click()} data-testid="pick-file">
          Attach file…
        </button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="file-input"
          onChange={async (e) => {
            if (e.target.files?.length) addFiles(await filesToDrafts(e.target.files));
            e.target.value = '';
          }}
        />
        <span className="hint">or drop files on the composer, or link one:</span>
        <label className="visually-hidden" htmlFor="file-uri">
          File URI
        </label>
        <input
          id="file-uri"
          className="input input--small files__uri"
          placeholder="https://…/file.pdf"
          value={uri}
          onChange={(e) => setUri(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              addUri();
            }
          }}
          aria-invalid={uriError ? true : undefined}
          aria-describedby={uriError ? 'file-uri-error' : undefined}
          data-testid="file-uri-input"
        />
        <button type="button" className="btn btn--small" onClick={addUri} disabled={!uri.trim()} data-testid="add-file-uri">
          Add URI
        </button>
      </div>
      {uriError ? (
        <p id="file-uri-error" className="field-error">
          {uriError}
        </p>
      ) : null}
      {files.length ? (
        <ul className="chips" aria-label="Attached files">
          {files.map((f) => (
            <li key={f.id} className="chip" data-testid="attached-file">
              <Icon name={f.source === 'uri' ? 'link' : 'file'} />
              {f.source === 'uri' ? (
                <span className="chip__text" title={f.uri}>
                  {f.uri}
                </span>
              ) : (
                <span className="chip__text" title={`${f.name} · ${f.mime_type}`}>
                  {f.name} <span className="muted">({formatBytes(f.size)})</span>
                  {f.size > INLINE_WARN_BYTES ? <span className="chip__warn"> large: consider a URI</span> : null}
                </span>
              )}
              <button type="button" className="chip__remove" aria-label={`Remove ${f.source === 'uri' ? f.uri : f.name}`} onClick={() => removeFile(f.id)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
