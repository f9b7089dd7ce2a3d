// The compare view's tables: scores with coloured deltas, files with hash marks.
import type { FileComparison, ScoreComparison } from '../../../../shared/compare.ts';
import { formatDuration } from '../../lib/format.ts';

const num = (n: number | null) => (n === null ? '–' : Number.isInteger(n) ? String(n) : n.toFixed(3));

export function Delta({ value, unit = '', higherIsBetter = true, testId }: { value: number | null; unit?: string; higherIsBetter?: boolean; testId?: string }) {
  if (value === null) return <span className="muted">–</span>;
  const dir = value === 0 ? 'flat' : value > 0 === higherIsBetter ? 'up' : 'down';
  const sign = value > 0 ? '+' : value < 0 ? '−' : '±';
  return (
    <span className={`delta delta--${dir}`} data-testid={testId} data-delta={value}>
      {sign}
      {unit === 'ms' ? formatDuration(Math.abs(value)) : num(Math.abs(value))}
    </span>
  );
}

export function ScoresDiff({ scores }: { scores: ScoreComparison[] }) {
  if (scores.length === 0) return <p className="muted">Neither run has scores.</p>;
  return (
    <table className="table" data-testid="score-diff">
      <caption className="visually-hidden">Scores, left and right</caption>
      <thead>
        <tr>
          <th scope="col">Evaluator</th>
          <th scope="col" className="num">
            Left
          </th>
          <th scope="col" className="num">
            Right
          </th>
          <th scope="col" className="num">
            Delta
          </th>
          <th scope="col">Other changes</th>
        </tr>
      </thead>
      <tbody>
        {scores.map((s, i) => (
          <tr key={`${s.evaluator}-${s.node}-${s.scope}-${i}`} data-testid="score-diff-row" data-evaluator={s.evaluator} data-status={s.status}>
            <th scope="row">
              {s.evaluator}
              {s.node ? <span className="muted"> · node {s.node}</span> : null}
            </th>
            <td className="num">{s.left ? num(s.left_score) : <span className="muted">absent</span>}</td>
            <td className="num">{s.right ? num(s.right_score) : <span className="muted">absent</span>}</td>
            <td className="num">
              <Delta value={s.delta} testId="score-delta" />
            </td>
            <td>
              {s.changed_keys.length ? (
                s.changed_keys.map((k) => (
                  <span key={k} className="keychange" title={`${JSON.stringify(s.left?.[k])} → ${JSON.stringify(s.right?.[k])}`}>
                    <code>{k}</code>: {String(s.left?.[k] ?? '–')} → {String(s.right?.[k] ?? '–')}
                  </span>
                ))
              ) : (
                <span className="muted">none</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const mark = (v: boolean | null, what: string) =>
  v === null ? (
    <span className="muted">n/a</span>
  ) : v ? (
    <span className="match match--yes" title={`same ${what}`}>
      ✓ same
    </span>
  ) : (
    <span className="match match--no" title={`different ${what}`}>
      ✗ differs
    </span>
  );

export function FilesDiff({ files }: { files: FileComparison[] }) {
  if (files.length === 0) return <p className="muted">No files on either side.</p>;
  return (
    <table className="table" data-testid="files-diff">
      <caption className="visually-hidden">Files, left and right</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Left</th>
          <th scope="col">Right</th>
          <th scope="col">Content (sha256)</th>
          <th scope="col">Type</th>
          <th scope="col">URI</th>
        </tr>
      </thead>
      <tbody>
        {files.map((f) => (
          <tr key={f.key} data-testid="file-diff-row" data-status={f.status}>
            <th scope="row">{f.key}</th>
            <td>{f.left ? `${f.left.mime_type ?? '?'}${f.left.size !== null ? ` · ${f.left.size} B` : ''}` : <span className="muted">absent</span>}</td>
            <td>{f.right ? `${f.right.mime_type ?? '?'}${f.right.size !== null ? ` · ${f.right.size} B` : ''}` : <span className="muted">absent</span>}</td>
            <td>{mark(f.same_sha256, 'content')}</td>
            <td>{mark(f.same_mime_type, 'MIME type')}</td>
            <td>{mark(f.same_uri, 'URI')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
