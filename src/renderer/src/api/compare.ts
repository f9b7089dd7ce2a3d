// Run comparison (GET /compare, GET /runs/{id}/stability) and the compare options, remembered
// per project in the browser's storage (docs/studio-ui.md).
import { useCallback, useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { DEFAULT_COMPARE_OPTIONS, RunComparisonSchema, StabilityReportSchema, type CompareOptions } from '../../../shared/compare.ts';
import { api } from './client.ts';
import { useProject } from './project.ts';

export function compareQuery(o: CompareOptions): string {
  const q = new URLSearchParams();
  for (const g of o.ignore) q.append('ignore', g);
  if (o.tolerance) q.set('tolerance', String(o.tolerance));
  if (o.arrays !== 'ordered') q.set('arrays', o.arrays);
  return q.toString();
}

export function useComparison(left: string | null, right: string | null, options: CompareOptions) {
  return useQuery({
    queryKey: ['compare', left, right, options],
    enabled: left !== null && right !== null,
    queryFn: ({ signal }) =>
      api(`/compare?left=${encodeURIComponent(left!)}&right=${encodeURIComponent(right!)}&${compareQuery(options)}`, RunComparisonSchema, { signal }),
    // A run still active is compared again as it goes on.
    refetchInterval: (q) => (q.state.data?.partial ? 1000 : false),
    placeholderData: (previous) => previous,
  });
}

export function useStability(runId: string | null, options: CompareOptions, enabled: boolean) {
  return useQuery({
    queryKey: ['stability', runId, options],
    enabled: enabled && runId !== null,
    queryFn: ({ signal }) => api(`/runs/${encodeURIComponent(runId!)}/stability?${compareQuery(options)}`, StabilityReportSchema, { signal }),
  });
}

const storageKey = (dir: string) => `agent-studio.compare-options:${dir}`;

function readOptions(dir: string | undefined): CompareOptions {
  if (!dir) return DEFAULT_COMPARE_OPTIONS;
  try {
    const raw = JSON.parse(localStorage.getItem(storageKey(dir)) ?? 'null') as Partial<CompareOptions> | null;
    if (!raw) return DEFAULT_COMPARE_OPTIONS;
    return {
      ignore: Array.isArray(raw.ignore) ? raw.ignore.filter((g): g is string => typeof g === 'string' && g !== '') : [],
      tolerance: typeof raw.tolerance === 'number' && raw.tolerance >= 0 ? raw.tolerance : 0,
      arrays: raw.arrays === 'set' ? 'set' : 'ordered',
    };
  } catch {
    return DEFAULT_COMPARE_OPTIONS;
  }
}

/** The compare options of the open project: remembered across reloads and restarts. */
export function useCompareOptions(): [CompareOptions, (next: CompareOptions) => void] {
  const project = useProject();
  const dir = project.data?.dir;
  const [options, setOptions] = useState<CompareOptions>(() => readOptions(dir));
  useEffect(() => setOptions(readOptions(dir)), [dir]);
  const update = useCallback(
    (next: CompareOptions) => {
      setOptions(next);
      if (dir) localStorage.setItem(storageKey(dir), JSON.stringify(next));
    },
    [dir],
  );
  return [options, update];
}
