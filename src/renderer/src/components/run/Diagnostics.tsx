// Project diagnostics of a run (spec: project_validation) with file:line; in the desktop
// app each opens in the user's editor.
import type { DiagnosticRunEvent } from '../../hooks/useRunStream.ts';
import { desktopBridge } from '../../lib/bridge.ts';
import { useUi } from '../../state/ui.ts';

export function location(d: DiagnosticRunEvent): string {
  if (!d.file) return '';
  return `${d.file}${d.line ? `:${d.line}` : ''}${d.line && d.column ? `:${d.column}` : ''}`;
}

export function Diagnostics({ items }: { items: DiagnosticRunEvent[] }) {
  const bridge = desktopBridge();
  const openSource = useUi((s) => s.openSource);
  return (
    <ul className="diagnostics" data-testid="diagnostics">
      {items.map((d) => (
        <li key={d.seq} className={`diag diag--${d.severity}`} data-testid="diagnostic">
          <span className="diag__sev">{d.severity === 'error' ? '✕ error' : '⚠ warning'}</span>
          {d.file ? (
            <button
              type="button"
              className="linkbtn"
              title="Open in the source view"
              onClick={() => openSource({ file: d.file!, line: d.line, column: d.column })}
              data-testid="diagnostic-open"
            >
              <code className="diag__loc">{location(d)}</code>
            </button>
          ) : null}
          <span className="diag__msg">{d.message}</span>
          {bridge && d.file ? (
            <button type="button" className="btn btn--small btn--ghost" onClick={() => void bridge.openInEditor(d.file!, d.line)}>
              Open in editor
            </button>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
