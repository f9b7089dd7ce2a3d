// Tagged parts (spec 2.6) for people: text as text, data as a tree, files with name, size,
// hash and a download, status and error parts as notes.
import type { TaggedPart } from '../../../../shared/playground.ts';
import { apiUrl } from '../../api/client.ts';
import { formatBytes, shortHash } from '../../lib/format.ts';
import { CopyButton } from '../CopyButton.tsx';
import { Icon } from '../Icon.tsx';
import { DataTree } from './DataTree.tsx';
import { reasonLabel, statusLabel } from '../StatusBadge.tsx';
import { useState } from 'react';
import { looksLikeMarkdown, Markdown } from './Markdown.tsx';
import { DataViews } from './ArrayTable.tsx';

function FilePartView({ part }: { part: Extract<TaggedPart, { kind: 'file' }> }) {
  if (part.source === 'uri') {
    return (
      <div className="part part--file" data-testid="part-file" data-source="uri">
        <Icon name="link" size={20} className="part__icon" />
        <div className="part__filebody">
          <div className="part__filename">{part.name ?? part.uri}</div>
          <div className="part__filemeta">
            <a href={part.uri} target="_blank" rel="noreferrer noopener">
              {part.uri}
            </a>{' '}
            · external, never downloaded by the studio{part.mime_type ? ` · ${part.mime_type}` : ''}
          </div>
        </div>
      </div>
    );
  }
  return (
    <div className="part part--file" data-testid="part-file" data-source="inline" data-sha256={part.sha256}>
      <Icon name="file" size={20} className="part__icon" />
      <div className="part__filebody">
        <div className="part__filename">{part.name ?? 'unnamed file'}</div>
        <div className="part__filemeta">
          {formatBytes(part.size)}
          {part.mime_type ? ` · ${part.mime_type}` : ''} · sha256 <code title={part.sha256}>{shortHash(part.sha256)}</code>
        </div>
      </div>
      <CopyButton value={part.sha256} label="Copy hash" />
      <a
        className="btn btn--small"
        href={apiUrl(`/blobs/${encodeURIComponent(part.sha256)}`)}
        download={part.name ?? part.sha256}
        data-testid="part-file-download"
      >
        Download
      </a>
    </div>
  );
}

function TextPart({ part }: { part: Extract<TaggedPart, { kind: 'text' }> }) {
  const [raw, setRaw] = useState(false);
  const markdown = looksLikeMarkdown(part.text);
  return (
    <div className="part-block">
      {markdown ? (
        <button type="button" className="linkbtn small part__format" aria-pressed={raw} onClick={() => setRaw(!raw)} data-testid="toggle-raw">
          {raw ? 'Show formatted' : 'Show raw text'}
        </button>
      ) : null}
      <div
        className={`part part--text${part.partial ? ' part--partial' : ''}`}
        data-testid="part-text"
        data-partial={part.partial ? 'true' : undefined}
        data-format={markdown && !raw ? 'markdown' : 'plain'}
      >
        {part.partial ? (
          <span className="part__partial" data-testid="partial-badge">
            Partial: streamed before the run stopped
          </span>
        ) : null}
        {markdown && !raw ? <Markdown text={part.text} /> : part.text}
      </div>
    </div>
  );
}

export function PartView({ part }: { part: TaggedPart }) {
  switch (part.kind) {
    case 'text':
      return <TextPart part={part} />;
    case 'data': {
      const schema = typeof part.data.schema === 'string' ? part.data.schema : null;
      return (
        <div className="part part--data" data-testid="part-data">
          <div className="part__head">
            <span className="part__kind">Data</span>
            {schema ? <code className="chip chip--schema">{schema}</code> : null}
          </div>
          <DataViews data={part.data} tree={<DataTree value={part.data} />} />
        </div>
      );
    }
    case 'file':
      return <FilePartView part={part} />;
    case 'status':
      return (
        <div className="part part--note" data-testid="part-status">
          Status {statusLabel(part.status)}
          {part.reason ? ` · ${reasonLabel(part.reason)}` : ''}
        </div>
      );
    case 'error':
      return (
        <div className="part part--error" role="note" data-testid="part-error">
          <strong>Error{part.code ? ` ${part.code}` : ''}:</strong> {part.message}
        </div>
      );
    default:
      return (
        <div className="part part--data">
          <DataTree value={part as unknown as Record<string, unknown>} />
        </div>
      );
  }
}

export function PartsView({ parts, testId, empty }: { parts: TaggedPart[]; testId?: string; empty?: string }) {
  if (parts.length === 0) return <p className="muted">{empty ?? 'Nothing.'}</p>;
  return (
    <div className="parts" data-testid={testId}>
      {parts.map((p, i) => (
        <PartView key={i} part={p} />
      ))}
    </div>
  );
}
