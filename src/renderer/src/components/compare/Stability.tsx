// Stability over reruns: a run and its reruns (same input, new context), and what varies
// among them, so a real regression is told from an answer that is flaky anyway.
import type { CompareOptions } from '../../../../shared/compare.ts';
import { useStability } from '../../api/compare.ts';
import { errorMessage } from '../../api/client.ts';
import { showValue } from './DataDiff.tsx';

export function StabilityPanel({ runId, options }: { runId: string; options: CompareOptions }) {
  const q = useStability(runId, options, true);
  if (q.isPending) return <p className="muted">Loading the reruns…</p>;
  if (q.isError) return <p className="field-error">{errorMessage(q.error)}</p>;
  const r = q.data;
  if (r.run_ids.length < 2)
    return (
      <p className="muted" data-testid="stability-none">
        No finished rerun of this input yet. Rerun it a few times to see which parts of the answer vary on their own.
      </p>
    );
  const varying = [
    ...(!r.status.stable ? [`status (${r.status.variants.map((v) => `${v.value} ×${v.run_ids.length}`).join(', ')})`] : []),
    ...r.text.filter((t) => !t.stable).map((t) => `text part ${t.index + 1} (${t.variants.length} versions)`),
    ...r.data.flatMap((d) => d.varying.map((v) => `${d.key} ${v.path}: ${v.variants.map((x) => showValue(x.value)).join(' | ')}`)),
    ...r.scores.filter((s) => !s.stable).map((s) => `score ${s.evaluator} (${s.min} – ${s.max})`),
  ];
  return (
    <div className="stability" data-testid="stability" data-stable={r.stable}>
      <p>
        {r.run_ids.length} runs of the same input (the original and {r.run_ids.length - 1} rerun{r.run_ids.length === 2 ? '' : 's'})
        {r.active_run_ids.length ? `, ${r.active_run_ids.length} still running` : ''}:{' '}
        {r.stable ? (
          <strong className="match match--yes">identical every time</strong>
        ) : (
          <strong className="match match--no">
            {varying.length} part{varying.length === 1 ? '' : 's'} vary
          </strong>
        )}
      </p>
      {varying.length ? (
        <ul className="stability__list">
          {varying.slice(0, 40).map((v) => (
            <li key={v} data-testid="stability-varying">
              <code>{v}</code>
            </li>
          ))}
        </ul>
      ) : null}
      <p className="muted small">A change that also varies across reruns of the same code is likely noise, not a regression.</p>
    </div>
  );
}
