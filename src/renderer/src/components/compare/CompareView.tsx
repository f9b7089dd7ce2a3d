// Compare two runs (docs/studio-ui.md): left is the baseline, right the run compared with it.
// Status and durations with the delta, the code files that changed, where the runs parted
// in the graph, the text diff (inline or split), the data paths, files, scores, and how
// stable the answer is across reruns.
import { UsageDiff } from './UsageDiff.tsx';
import { useState } from 'react';
import type { CompareOptions, RunComparison, RunSide } from '../../../../shared/compare.ts';
import type { RunSummary } from '../../../../shared/playground.ts';
import { useComparison, useCompareOptions } from '../../api/compare.ts';
import { errorMessage } from '../../api/client.ts';
import { useRuns } from '../../api/queries.ts';
import { formatDuration, formatTime, shortId } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import { StatusBadge } from '../StatusBadge.tsx';
import { CodeChanges } from './CodeChanges.tsx';
import { DataDiff } from './DataDiff.tsx';
import { DivergencePanel } from './Divergence.tsx';
import { StabilityPanel } from './Stability.tsx';
import { Delta, FilesDiff, ScoresDiff } from './Tables.tsx';
import { DiffModeToggle, TextDiff, type DiffMode } from './TextDiff.tsx';

const ORIGIN: Record<RunSummary['origin'], string> = { send: 'Message', resume: 'Reply', rerun: 'Rerun' };

function RunPicker({
  label,
  value,
  runs,
  onChange,
  testId,
}: {
  label: string;
  value: string | null;
  runs: RunSummary[];
  onChange: (id: string) => void;
  testId: string;
}) {
  const sorted = [...runs].sort((a, b) => a.created_at.localeCompare(b.created_at));
  const known = sorted.some((r) => r.run_id === value);
  return (
    <label className="field compare__picker">
      <span className="field__label">{label}</span>
      <select className="input" value={value ?? ''} onChange={(e) => onChange(e.target.value)} data-testid={testId}>
        <option value="" disabled>
          Pick a run…
        </option>
        {value && !known ? <option value={value}>{shortId(value)} (another session)</option> : null}
        {sorted.map((r, i) => (
          <option key={r.run_id} value={r.run_id}>
            #{i + 1} {ORIGIN[r.origin]} · {formatTime(r.created_at)} · {r.status}
          </option>
        ))}
      </select>
    </label>
  );
}

function OptionsBar({ options, onChange }: { options: CompareOptions; onChange: (o: CompareOptions) => void }) {
  const [globs, setGlobs] = useState(options.ignore.join(', '));
  const apply = () =>
    onChange({
      ...options,
      ignore: globs
        .split(/[,\n]/)
        .map((g) => g.trim())
        .filter(Boolean),
    });
  return (
    <details className="compare__options" data-testid="compare-options">
      <summary>
        Options{options.ignore.length || options.tolerance || options.arrays === 'set' ? ' (in use)' : ''}
        <span className="muted small"> · remembered for this project</span>
      </summary>
      <div className="compare__options-body">
        <label className="field">
          <span className="field__label">
            Ignore JSON paths (globs, comma separated: <code>**/id</code>, <code>/items/*/ts</code>)
          </span>
          <input
            className="input"
            value={globs}
            onChange={(e) => setGlobs(e.target.value)}
            onBlur={apply}
            onKeyDown={(e) => e.key === 'Enter' && apply()}
            data-testid="compare-ignore"
          />
        </label>
        <label className="field">
          <span className="field__label">Numbers equal within</span>
          <input
            className="input input--small"
            type="number"
            min={0}
            step="any"
            value={options.tolerance}
            onChange={(e) => onChange({ ...options, tolerance: Math.max(0, Number(e.target.value) || 0) })}
            data-testid="compare-tolerance"
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={options.arrays === 'set'}
            onChange={(e) => onChange({ ...options, arrays: e.target.checked ? 'set' : 'ordered' })}
            data-testid="compare-arrays-set"
          />{' '}
          Compare arrays as sets (order does not count)
        </label>
      </div>
    </details>
  );
}

function SideSummary({ side, title }: { side: RunSide; title: string }) {
  const selectRun = useUi((s) => s.selectRun);
  return (
    <div className="compare__side" data-testid={`compare-side-${title.toLowerCase()}`} data-run-id={side.run_id}>
      <h3 className="subhead">{title}</h3>
      <button type="button" className="linkbtn" onClick={() => selectRun(side.session_id, side.run_id)}>
        <code>{shortId(side.run_id)}</code>
      </button>{' '}
      <StatusBadge status={side.status} reason={side.reason} compact />
      <p className="muted small">
        {side.duration_ms === null ? 'no duration' : formatDuration(side.duration_ms)}
        {side.active ? ' so far' : ''} · {ORIGIN[side.origin]}
        {side.replayed_from ? <span data-testid="compare-replayed"> · replayed from {side.replayed_from.slice(0, 12)}</span> : null}
      </p>
    </div>
  );
}

function Section({ title, children, testId, badge }: { title: string; children: React.ReactNode; testId: string; badge?: string }) {
  return (
    <section className="compare__section" data-testid={testId} aria-label={title}>
      <h2 className="compare__title">
        {title}
        {badge ? <span className="section__count">{badge}</span> : null}
      </h2>
      {children}
    </section>
  );
}

function Result({ c, options }: { c: RunComparison; options: CompareOptions }) {
  const [mode, setMode] = useState<DiffMode>('inline');
  const changedText = c.output.text.filter((t) => t.status !== 'equal').length;
  const changedData = c.output.data.filter((d) => d.status !== 'equal').length;
  const stabilityRun = c.right.origin === 'rerun' ? c.right.run_id : c.left.origin === 'rerun' ? c.left.run_id : c.right.run_id;
  return (
    <div className="compare__result" data-testid="compare-result" data-equal={c.equal} data-partial={c.partial}>
      {c.partial ? (
        <p className="banner banner--info" data-testid="compare-partial">
          {c.left.active ? 'The left' : 'The right'} run is still active: this compares what it has so far, and updates as it goes.
        </p>
      ) : null}
      <div className="compare__sides">
        <SideSummary side={c.left} title="Left" />
        <div className="compare__delta">
          <span className="muted small">duration</span>
          <Delta value={c.duration_delta_ms} unit="ms" higherIsBetter={false} testId="duration-delta" />
          <span className={`pill pill--${c.equal ? 'equal' : 'changed'}`} data-testid="compare-verdict">
            {c.equal ? 'same answer' : 'different answer'}
          </span>
        </div>
        <SideSummary side={c.right} title="Right" />
      </div>
      <Section title="Tokens and cost" testId="compare-usage">
        <UsageDiff usage={c.usage} />
      </Section>
      <Section title="Code" testId="compare-code">
        <CodeChanges c={c} mode={mode} onMode={setMode} />
      </Section>
      <Section title="Where they diverged" testId="compare-divergence">
        <DivergencePanel c={c} />
      </Section>
      <Section title="Text" testId="compare-text" badge={changedText ? `${changedText} changed` : undefined}>
        <DiffModeToggle mode={mode} onMode={setMode} label="Diff layout" testIdPrefix="diff-mode" />
        {c.output.text.length === 0 ? <p className="muted">No text on either side.</p> : c.output.text.map((t) => <TextDiff key={t.index} c={t} mode={mode} />)}
      </Section>
      <Section title="Data" testId="compare-data" badge={changedData ? `${changedData} changed` : undefined}>
        <DataDiff items={c.output.data} />
      </Section>
      <Section title="Scores" testId="compare-scores">
        <ScoresDiff scores={c.scores} />
      </Section>
      <Section title="Files" testId="compare-files">
        <FilesDiff files={c.output.files} />
      </Section>
      {!c.input.equal ? (
        <Section title="Input" testId="compare-input" badge="differs">
          {c.input.text.map((t) => (
            <TextDiff key={t.index} c={t} mode="split" />
          ))}
          {c.input.data.some((d) => d.status !== 'equal') ? <DataDiff items={c.input.data} /> : null}
        </Section>
      ) : null}
      <Section title="Across reruns" testId="compare-stability">
        <StabilityPanel runId={stabilityRun} options={options} />
      </Section>
    </div>
  );
}

export function CompareView() {
  const sessionId = useUi((s) => s.sessionId);
  const left = useUi((s) => s.compareLeft);
  const right = useUi((s) => s.compareRight);
  const openCompare = useUi((s) => s.openCompare);
  const runs = useRuns(sessionId);
  const [options, setOptions] = useCompareOptions();
  const cmp = useComparison(left, right, options);
  const list = runs.data ?? [];

  return (
    <section className="compare" data-testid="compare-view" aria-labelledby="compare-title">
      <header className="compare__header">
        <h1 id="compare-title" className="runview__title">
          Compare runs
        </h1>
        <div className="compare__pickers">
          <RunPicker label="Left (baseline)" value={left} runs={list} onChange={(id) => openCompare(id, right)} testId="compare-left" />
          <button
            type="button"
            className="btn btn--small"
            onClick={() => openCompare(right, left)}
            disabled={!left || !right}
            title="Swap left and right"
            data-testid="compare-swap"
          >
            ⇄ Swap
          </button>
          <RunPicker label="Right (compared with it)" value={right} runs={list} onChange={(id) => openCompare(left, id)} testId="compare-right" />
        </div>
        <OptionsBar key={options.ignore.join('\n')} options={options} onChange={setOptions} />
      </header>
      {!left || !right ? (
        <p className="muted" data-testid="compare-pick">
          Pick two runs: the left one is the baseline, every delta is right minus left. From a run, “Compare with…” opens this view with it on the left; a rerun
          offers “Compare with the original”.
        </p>
      ) : cmp.isError ? (
        <p className="banner banner--danger" role="alert">
          Could not compare: {errorMessage(cmp.error)}
        </p>
      ) : cmp.data ? (
        <Result c={cmp.data} options={options} />
      ) : (
        <p className="muted">Comparing…</p>
      )}
    </section>
  );
}
