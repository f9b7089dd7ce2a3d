// Export and import of bundles (docs/studio-ui.md): export chosen sessions to a
// `.agentbundle.json` file (a download; Electron shows its save dialog for it), and import
// one: the dry-run plan first, or each problem with its path, then the import itself.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  BundleProblemSchema,
  ImportPlanSchema,
  ImportResultSchema,
  type BundleExportRequest,
  type BundleProblem,
  type ImportPlan,
} from '../../../../shared/bundle.ts';
import { ApiError, apiUrl, errorMessage, readReply, toApiError } from '../../api/client.ts';
import { evalKeys, useExperiments } from '../../api/experiments.ts';
import { keys, useSessions } from '../../api/queries.ts';
import { formatBytes } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import { Modal } from '../Modal.tsx';

/** `body` a string, or the picked file itself: sent from disk as it is read, so a bundle of
 * a gigabyte never becomes one string in the renderer (the studio streams it too, D-96). */
async function postBundle(path: string, body: string | Blob): Promise<Response> {
  const res = await fetch(apiUrl(path), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
  if (!res.ok) throw await toApiError(res);
  return res;
}

function ExportDialog({ onClose }: { onClose: () => void }) {
  const sessions = useSessions();
  const current = useUi((s) => s.sessionId);
  const [picked, setPicked] = useState<Set<string>>(() => new Set(current ? [current] : []));
  const experiments = useExperiments(null);
  const [pickedExps, setPickedExps] = useState<Set<string>>(() => new Set());
  const [withDatasets, setWithDatasets] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<{ name: string; size: number } | null>(null);

  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const datasets = withDatasets ? [...new Set((experiments.data ?? []).filter((e) => pickedExps.has(e.experiment_id)).map((e) => e.dataset))] : [];
      const request: BundleExportRequest = { session_ids: [...picked], run_ids: [], experiment_ids: [...pickedExps], datasets };
      const res = await postBundle('/bundles/export', JSON.stringify(request));
      const blob = await res.blob();
      const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'sessions.agentbundle.json';
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setSaved({ name, size: blob.size });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <p className="dialog__body">Choose the sessions to share. Each comes with all its runs, their events and the files they used.</p>
      <ul className="bundle__list" aria-label="Sessions to export">
        {(sessions.data ?? []).map((s) => (
          <li key={s.session_id}>
            <label className="check">
              <input
                type="checkbox"
                checked={picked.has(s.session_id)}
                onChange={(e) => {
                  const next = new Set(picked);
                  if (e.target.checked) next.add(s.session_id);
                  else next.delete(s.session_id);
                  setPicked(next);
                }}
                data-testid="export-session"
                data-session-id={s.session_id}
              />
              {s.title || s.session_id}{' '}
              <span className="muted small">
                ({s.run_count} run{s.run_count === 1 ? '' : 's'})
              </span>
            </label>
          </li>
        ))}
      </ul>
      {experiments.data?.length ? (
        <>
          <p className="dialog__body">Experiments (each with its cases and their runs):</p>
          <ul className="bundle__list" aria-label="Experiments to export">
            {experiments.data.map((e) => (
              <li key={e.experiment_id}>
                <label className="check">
                  <input
                    type="checkbox"
                    checked={pickedExps.has(e.experiment_id)}
                    onChange={(ev) => {
                      const next = new Set(pickedExps);
                      if (ev.target.checked) next.add(e.experiment_id);
                      else next.delete(e.experiment_id);
                      setPickedExps(next);
                    }}
                    data-testid="export-experiment"
                    data-experiment-id={e.experiment_id}
                  />
                  {e.dataset}{' '}
                  <span className="muted small">
                    ({e.status}, {e.counts.total} cases, {e.created_at.slice(0, 16).replace('T', ' ')})
                  </span>
                </label>
              </li>
            ))}
          </ul>
          <label className="check">
            <input type="checkbox" checked={withDatasets} onChange={(ev) => setWithDatasets(ev.target.checked)} data-testid="export-with-datasets" />
            Include their dataset files
          </label>
        </>
      ) : null}
      <p className="banner banner--warning" data-testid="export-review">
        Review before sharing: texts, data and files go out exactly as they are; only metadata values are replaced by <code>[redacted]</code> (keys kept).
        Environment files and capture tokens are never included.
      </p>
      {saved ? (
        <p className="banner banner--success" data-testid="export-saved" data-size={saved.size}>
          Saved <code>{saved.name}</code> ({formatBytes(saved.size)}).
        </p>
      ) : null}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="dialog__actions">
        <button type="button" className="btn" onClick={onClose}>
          {saved ? 'Done' : 'Cancel'}
        </button>
        <button type="button" className="btn btn--primary" disabled={busy || picked.size + pickedExps.size === 0} onClick={run} data-testid="export-confirm">
          {busy
            ? 'Exporting…'
            : `Export ${picked.size} session${picked.size === 1 ? '' : 's'}${pickedExps.size ? ` and ${pickedExps.size} experiment${pickedExps.size === 1 ? '' : 's'}` : ''}`}
        </button>
      </div>
    </>
  );
}

function Plan({ plan }: { plan: ImportPlan }) {
  return (
    <div data-testid="import-plan">
      <p>
        From project <strong>{plan.project ?? 'unknown'}</strong>, this creates:
      </p>
      <ul>
        <li data-testid="plan-sessions">
          {plan.create.sessions} session{plan.create.sessions === 1 ? '' : 's'} and {plan.create.runs} run{plan.create.runs === 1 ? '' : 's'} with{' '}
          {plan.create.events} events, under new ids
        </li>
        <li>
          {plan.blobs.new} new file{plan.blobs.new === 1 ? '' : 's'} ({formatBytes(plan.blobs.bytes_new)})
          {plan.blobs.already_stored ? `, ${plan.blobs.already_stored} already stored here (kept once)` : ''}
        </li>
        {plan.interrupted_runs ? <li>{plan.interrupted_runs} run(s) exported while active arrive interrupted</li> : null}
        {plan.create.experiments ? (
          <li data-testid="plan-experiments">
            {plan.create.experiments} experiment{plan.create.experiments === 1 ? '' : 's'} with {plan.create.experiment_cases} case results, marked imported
            {plan.cancelled_experiments ? ` (${plan.cancelled_experiments} exported while running arrive cancelled)` : ''}
          </li>
        ) : null}
        {plan.datasets.map((d) => (
          <li key={d.name} data-testid="plan-dataset" data-action={d.action}>
            dataset <code>{d.name}</code>:{' '}
            {d.action === 'create' ? (
              <>
                written to <code>{d.file}</code>
              </>
            ) : d.action === 'identical' ? (
              <>
                already here as <code>{d.file}</code> (nothing written)
              </>
            ) : (
              <>
                your <code>{d.name}</code> differs, so it is written to <code>{d.file}</code> (yours is not touched)
              </>
            )}
          </li>
        ))}
        {plan.redacted_metadata_keys.length ? (
          <li>
            metadata values arrive redacted: <code>{plan.redacted_metadata_keys.join(', ')}</code>
          </li>
        ) : null}
      </ul>
    </div>
  );
}

function Problems({ problems, message }: { problems: BundleProblem[]; message: string }) {
  return (
    <div className="banner banner--danger" role="alert" data-testid="import-problems">
      <p>{message}</p>
      {problems.length ? (
        <ul className="bundle__problems">
          {problems.slice(0, 50).map((p, i) => (
            <li key={i} data-testid="import-problem" data-path={p.path}>
              <code>{p.path || '/'}</code>: {p.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function ImportDialog({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const selectSession = useUi((s) => s.selectSession);
  const openExperiment = useUi((s) => s.openExperiment);
  const [bundleFile, setBundleFile] = useState<File | null>(null);
  const [fileName, setFileName] = useState<string | null>(null);
  const [plan, setPlan] = useState<ImportPlan | null>(null);
  const [failure, setFailure] = useState<{ message: string; problems: BundleProblem[] } | null>(null);
  const [busy, setBusy] = useState(false);

  const fail = (err: unknown) => {
    const problems = err instanceof ApiError ? BundleProblemSchema.array().safeParse(err.detail.problems) : null;
    setFailure({ message: errorMessage(err), problems: problems?.success ? problems.data : [] });
  };

  const pick = async (file: File) => {
    setPlan(null);
    setFailure(null);
    setFileName(file.name);
    setBusy(true);
    try {
      setBundleFile(file);
      const res = await postBundle('/bundles/import?dry_run=true', file);
      setPlan(readReply('/bundles/import', res.status, ImportPlanSchema, await res.json()));
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    if (!bundleFile) return;
    setBusy(true);
    try {
      const res = await postBundle('/bundles/import', bundleFile);
      const result = readReply('/bundles/import', res.status, ImportResultSchema, await res.json());
      await qc.invalidateQueries({ queryKey: keys.sessions });
      if (Object.keys(result.mapping.experiments).length || Object.keys(result.mapping.datasets).length) {
        await qc.invalidateQueries({ queryKey: ['experiments'] });
        await qc.invalidateQueries({ queryKey: evalKeys.datasets });
      }
      // An experiment's sessions are hidden: land on the experiment instead.
      const experiment = Object.values(result.mapping.experiments).sort()[0];
      const first = Object.values(result.mapping.sessions).sort()[0];
      if (experiment) openExperiment(experiment);
      else if (first) selectSession(first);
      onClose();
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <p className="dialog__body">
        Pick a teammate’s <code>.agentbundle.json</code>. Nothing is written until you confirm; the bundle is checked in full first.
      </p>
      <div
        className="bundle__drop"
        onDragOver={(e) => e.preventDefault()}
        onDrop={(e) => {
          e.preventDefault();
          const f = e.dataTransfer.files[0];
          if (f) void pick(f);
        }}
      >
        <input
          type="file"
          accept=".json,application/json"
          onChange={(e) => e.target.files?.[0] && pick(e.target.files[0])}
          data-testid="import-file"
          aria-label="Bundle file"
        />
        <span className="muted small">or drop it here</span>
      </div>
      {busy && !plan ? <p className="muted">Checking {fileName}…</p> : null}
      {plan ? <Plan plan={plan} /> : null}
      {failure ? <Problems problems={failure.problems} message={failure.message} /> : null}
      <div className="dialog__actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="btn btn--primary" disabled={busy || !plan || failure !== null} onClick={confirm} data-testid="import-confirm">
          {busy && plan ? 'Importing…' : 'Import'}
        </button>
      </div>
    </>
  );
}

export function BundleActions() {
  const [open, setOpen] = useState<'export' | 'import' | null>(null);
  return (
    <div className="bundle-actions" data-testid="bundle-actions" role="group" aria-label="Bundles">
      <button
        type="button"
        className="btn btn--small btn--ghost"
        onClick={() => setOpen('export')}
        data-testid="export-bundle"
        title="Share sessions with a teammate as a bundle file"
      >
        Export bundle
      </button>
      <button
        type="button"
        className="btn btn--small btn--ghost"
        onClick={() => setOpen('import')}
        data-testid="import-bundle"
        title="Import a teammate’s bundle file"
      >
        Import bundle
      </button>
      <Modal open={open === 'export'} title="Export a bundle" onClose={() => setOpen(null)} testId="export-dialog" wide>
        <ExportDialog onClose={() => setOpen(null)} />
      </Modal>
      <Modal open={open === 'import'} title="Import a bundle" onClose={() => setOpen(null)} testId="import-dialog" wide>
        <ImportDialog onClose={() => setOpen(null)} />
      </Modal>
    </div>
  );
}
