// Evaluation scores of a run (spec 2.6). Optional keys show only when the evaluator gave
// them; unknown keys are ignored.
import type { ScoreEntry } from '../../../../shared/playground.ts';
import { formatDuration } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';

export function ScoresTable({ scores }: { scores: ScoreEntry[] }) {
  const openSource = useUi((s) => s.openSource);
  const has = (k: keyof ScoreEntry) => scores.some((s) => s[k] !== undefined && s[k] !== null);
  return (
    <table className="table" data-testid="scores-table">
      <caption className="visually-hidden">Evaluation scores</caption>
      <thead>
        <tr>
          <th scope="col">Evaluator</th>
          <th scope="col" className="num">
            Score
          </th>
          {has('passStatus') ? <th scope="col">Verdict</th> : null}
          <th scope="col">Reason</th>
          {has('scope') || has('node') ? <th scope="col">Attached to</th> : null}
          {has('duration_ms') ? (
            <th scope="col" className="num">
              Time
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {scores.map((s, i) => (
          <tr key={`${s.evaluator}-${i}`} data-testid="score-row" data-evaluator={s.evaluator}>
            <th scope="row">{s.evaluator}</th>
            <td className="num">
              {s.score === null ? (
                <span className="muted">no score</span>
              ) : (
                <span className="score">
                  {Number.isInteger(s.score) ? s.score : s.score.toFixed(2)}
                  {s.score >= 0 && s.score <= 1 ? (
                    <span className="score__bar" aria-hidden="true">
                      <span style={{ width: `${s.score * 100}%` }} />
                    </span>
                  ) : null}
                </span>
              )}
            </td>
            {has('passStatus') ? <td>{s.passStatus ?? ''}</td> : null}
            <td>{s.reason ?? <span className="muted">–</span>}</td>
            {has('scope') || has('node') ? (
              <td>
                {s.scope ? `${s.scope}${s.node ? ' · ' : ''}` : ''}
                {s.node ? (
                  // spec 2.6: with `node` the studio jumps to that node's evaluation declaration.
                  <button type="button" className="linkbtn" onClick={() => openSource({ node: s.node!, prefer: 'evaluator' })} data-testid="score-node">
                    node {s.node}
                  </button>
                ) : null}
              </td>
            ) : null}
            {has('duration_ms') ? <td className="num">{s.duration_ms !== undefined ? formatDuration(s.duration_ms) : ''}</td> : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
