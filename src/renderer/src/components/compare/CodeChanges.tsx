// The code files that changed between the two runs, each with its diff (left run's file to
// the right run's, GET /api/project/file?run= for both; docs/studio-ui.md, Compare), inline
// or side by side like the text diff, and links opening either version in the source view
// (read-only there).
import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { RunComparison } from '../../../../shared/compare.ts';
import { errorMessage } from '../../api/client.ts';
import { fetchProjectFile } from '../../api/project.ts';
import { fileComparison } from '../../lib/fileDiff.ts';
import { useUi } from '../../state/ui.ts';
import { DiffModeToggle, TextDiff, type DiffMode } from './TextDiff.tsx';

/** Diffs shown open at first; more changed files than this start closed. */
const OPEN_AT_FIRST = 3;

type FileChange = RunComparison['code']['changed_files'][number];

/** A file as it was at a run: the content never changes, so it is fetched once. */
function useFileAtRun(path: string, runId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['project-file-at-run', path, runId],
    queryFn: ({ signal }) => fetchProjectFile(path, runId, signal),
    enabled,
    staleTime: Infinity,
    retry: false,
  });
}

function CodeFileDiff({ file, leftRun, rightRun, mode }: { file: FileChange; leftRun: string; rightRun: string; mode: DiffMode }) {
  const left = useFileAtRun(file.path, leftRun, file.change !== 'added');
  const right = useFileAtRun(file.path, rightRun, file.change !== 'removed');
  const leftText = file.change === 'added' ? null : left.data?.content;
  const rightText = file.change === 'removed' ? null : right.data?.content;
  const comparison = useMemo(() => (leftText === undefined || rightText === undefined ? null : fileComparison(leftText, rightText)), [leftText, rightText]);
  const failed = left.error ?? right.error;
  if (failed)
    return (
      <p className="field-error" role="alert">
        Could not load {file.path} as the runs had it: {errorMessage(failed)}
      </p>
    );
  if (!comparison) return <p className="muted small">Loading both versions…</p>;
  return <TextDiff c={comparison} mode={mode} testId="code-diff" />;
}

/** Opens `path` in the source view as the run on `side` had it (read-only). */
function OpenAsRun({ path, side, runId }: { path: string; side: 'left' | 'right'; runId: string }) {
  const openSource = useUi((s) => s.openSource);
  return (
    <>
      {' '}
      <button
        type="button"
        className="linkbtn small"
        onClick={() => openSource({ file: path, runId })}
        title={`Open this file as the ${side} run had it (read-only)`}
        data-testid={`code-open-${side}`}
      >
        (as {side} had it)
      </button>
    </>
  );
}

export function CodeChanges({ c, mode, onMode }: { c: RunComparison; mode: DiffMode; onMode: (mode: DiffMode) => void }) {
  const files = c.code.changed_files;
  const [open, setOpen] = useState<Set<string>>(() => new Set(files.slice(0, OPEN_AT_FIRST).map((f) => f.path)));
  if (!c.code.known)
    return <p className="muted">The code of {c.left.code_fingerprint ? 'the right' : 'the left'} run is not known (it never reached the runtime).</p>;
  if (c.code.same) return <p data-testid="code-same">Both runs ran the same code.</p>;
  const toggle = (path: string) =>
    setOpen((o) => {
      const next = new Set(o);
      if (!next.delete(path)) next.add(path);
      return next;
    });
  return (
    <div data-testid="code-changes">
      <p>
        The code changed between the runs ({files.length} file{files.length === 1 ? '' : 's'}):
      </p>
      <DiffModeToggle mode={mode} onMode={onMode} label="Code diff layout" testIdPrefix="code-diff-mode" />
      <ul className="compare__files">
        {files.map((f) => (
          <li key={f.path} data-testid="code-change" data-path={f.path} data-change={f.change}>
            <span className={`pill pill--${f.change === 'modified' ? 'changed' : f.change}`}>{f.change}</span>{' '}
            <button
              type="button"
              className="linkbtn"
              aria-expanded={open.has(f.path)}
              onClick={() => toggle(f.path)}
              title={open.has(f.path) ? 'Hide the diff' : 'Show the diff between the runs'}
              data-testid="code-diff-toggle"
            >
              <code>{f.path}</code>
            </button>
            {f.change !== 'removed' ? <OpenAsRun path={f.path} side="right" runId={c.right.run_id} /> : null}
            {f.change !== 'added' ? <OpenAsRun path={f.path} side="left" runId={c.left.run_id} /> : null}
            {open.has(f.path) ? <CodeFileDiff file={f} leftRun={c.left.run_id} rightRun={c.right.run_id} mode={mode} /> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
