// Follows a running experiment's progress stream (docs/playground-api.md, GET
// /experiments/{id}/events): each `progress` summary goes into the experiment's detail at
// once, the case list is read again when cases have ended since (at most every
// CASES_EVERY_MS: 10,000 case rows are pages of 500), and `end` reads the detail (its
// aggregates) and the cases once more. A dropped stream is opened again after a pause; the
// queries keep a slow poll as the fallback (experiments.ts).
import { useEffect } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { readSse } from './sse.ts';
import { ExperimentSummarySchema, type ExperimentDetail, type ExperimentSummary } from '../../../shared/experiments.ts';
import { apiUrl } from './client.ts';
import { evalKeys } from './experiments.ts';

const CASES_EVERY_MS = 2000;
const RETRY_MS = 1000;

type Handler = (kind: 'progress' | 'end', summary: ExperimentSummary) => void;

/** Reads the stream until `end`, the signal, or a drop (then resolves false). */
async function readOnce(id: string, signal: AbortSignal, onSummary: Handler): Promise<boolean> {
  const res = await fetch(apiUrl(`/experiments/${encodeURIComponent(id)}/events`), { headers: { accept: 'text/event-stream' }, signal, cache: 'no-store' });
  if (res.status === 404) return true; // deleted: nothing more will come
  if (!res.ok || !res.body) return false;
  let ended = false;
  await readSse(res.body, (message) => {
    if (message.event !== 'progress' && message.event !== 'end') return;
    let body: unknown;
    try {
      body = JSON.parse(message.data);
    } catch {
      return;
    }
    const parsed = ExperimentSummarySchema.safeParse(body);
    if (!parsed.success) return;
    if (message.event === 'end') ended = true;
    onSummary(message.event, parsed.data);
  });
  return ended;
}

const ended = (c: ExperimentSummary['counts']) => c.passed + c.failed + c.error + c.cancelled;

/** While experiment `id` runs, keeps its detail and case list current from its event stream. */
export function useExperimentProgress(id: string | null, running: boolean): void {
  const qc = useQueryClient();
  useEffect(() => {
    if (!id || !running) return;
    const ac = new AbortController();
    let seen = -1;
    let casesReadAt = 0;
    let pending: ReturnType<typeof setTimeout> | null = null;
    const readCases = () => {
      pending = null;
      casesReadAt = Date.now();
      void qc.invalidateQueries({ queryKey: ['experiments', 'cases', id] });
    };
    const onSummary: Handler = (kind, summary) => {
      qc.setQueryData<ExperimentDetail>(evalKeys.experiment(id), (prev) => (prev ? { ...prev, ...summary } : prev));
      if (kind === 'end') {
        // The aggregates come with the detail; the case list's key changes with the status.
        void qc.invalidateQueries({ queryKey: ['experiments'] });
        return;
      }
      const n = ended(summary.counts);
      if (n === seen) return;
      seen = n;
      if (pending) return;
      const wait = casesReadAt + CASES_EVERY_MS - Date.now();
      if (wait <= 0) readCases();
      else pending = setTimeout(readCases, wait);
    };
    void (async () => {
      while (!ac.signal.aborted) {
        let done = false;
        try {
          done = await readOnce(id, ac.signal, onSummary);
        } catch {
          done = false; // dropped: open it again
        }
        if (done || ac.signal.aborted) return;
        await new Promise((r) => setTimeout(r, RETRY_MS));
      }
    })();
    return () => {
      ac.abort();
      if (pending) clearTimeout(pending);
    };
  }, [id, running, qc]);
}
