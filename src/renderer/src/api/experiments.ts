// Datasets and experiments (docs/playground-api.md, "Datasets and experiments"): one hook per
// endpoint, each reply read with its shared schema (src/shared/experiments.ts).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  AddCaseReplySchema,
  DatasetDetailSchema,
  DatasetListSchema,
  ExperimentAcceptedSchema,
  ExperimentCasePageSchema,
  ExperimentCompareSchema,
  ExperimentDetailSchema,
  ExperimentPageSchema,
  type AddCaseBody,
  type CreateExperimentBody,
  type ExperimentCase,
  type ExperimentSummary,
} from '../../../shared/experiments.ts';
import { api } from './client.ts';

export const evalKeys = {
  datasets: ['datasets'] as const,
  dataset: (name: string) => ['datasets', name] as const,
  experiments: (dataset: string | null) => ['experiments', 'list', dataset ?? ''] as const,
  experiment: (id: string) => ['experiments', 'one', id] as const,
  cases: (id: string, status: string) => ['experiments', 'cases', id, status] as const,
  compare: (left: string, right: string) => ['experiments', 'compare', left, right] as const,
};

const enc = encodeURIComponent;

/** GET /datasets: the project's `evals/*.jsonl`, kept fresh (a save in the source view or an
 * edit on disk shows within seconds). */
export function useDatasets() {
  return useQuery({
    queryKey: evalKeys.datasets,
    queryFn: ({ signal }) => api('/datasets', DatasetListSchema, { signal }),
    refetchInterval: 3000,
  });
}

export function useDataset(name: string | null) {
  return useQuery({
    queryKey: evalKeys.dataset(name ?? ''),
    enabled: name !== null,
    queryFn: ({ signal }) => api(`/datasets/${enc(name!)}`, DatasetDetailSchema, { signal }),
    refetchInterval: 3000,
  });
}

export function useCreateDataset() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { name: string; description?: string }) => api('/datasets', DatasetDetailSchema, { method: 'POST', body }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: evalKeys.datasets }),
  });
}

/** POST /datasets/{name}/cases ("Add to dataset"). */
export function useAddCase() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ dataset, body }: { dataset: string; body: AddCaseBody }) =>
      api(`/datasets/${enc(dataset)}/cases`, AddCaseReplySchema, { method: 'POST', body }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: evalKeys.datasets }),
  });
}

const running = (s: ExperimentSummary | undefined) => s?.status === 'running';

/** GET /experiments (newest first), every page; polled while one of them runs. */
export function useExperiments(dataset: string | null) {
  return useQuery({
    queryKey: evalKeys.experiments(dataset),
    queryFn: async ({ signal }): Promise<ExperimentSummary[]> => {
      const all: ExperimentSummary[] = [];
      let cursor: string | null = null;
      do {
        const q = new URLSearchParams({ limit: '100' });
        if (dataset) q.set('dataset', dataset);
        if (cursor) q.set('cursor', cursor);
        const page = await api(`/experiments?${q.toString()}`, ExperimentPageSchema, { signal });
        all.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor && all.length < 1000);
      return all;
    },
    refetchInterval: (q) => (q.state.data?.some(running) ? 1000 : false),
  });
}

/** GET /experiments/{id}. While it runs, its event stream keeps it current
 * (experimentEvents.ts); the slow poll is the fallback when the stream cannot be opened. */
export function useExperiment(id: string | null) {
  return useQuery({
    queryKey: evalKeys.experiment(id ?? ''),
    enabled: id !== null,
    queryFn: ({ signal }) => api(`/experiments/${enc(id!)}`, ExperimentDetailSchema, { signal }),
    refetchInterval: (q) => (running(q.state.data) ? 5000 : false),
  });
}

/** Every case result of an experiment (pages of 500), filtered in the view: 10,000 rows are
 * a few MB and a virtualised table shows them; read again as cases end (the event stream,
 * experimentEvents.ts; a slow poll as the fallback), and once more when it ends (the status
 * is in the key). */
export function useExperimentCases(id: string | null, status: string | undefined) {
  const isRunning = status === 'running';
  return useQuery({
    queryKey: evalKeys.cases(id ?? '', status ?? ''),
    enabled: id !== null && status !== undefined,
    queryFn: async ({ signal }): Promise<ExperimentCase[]> => {
      const all: ExperimentCase[] = [];
      let cursor: string | null = null;
      do {
        const q = new URLSearchParams({ limit: '500' });
        if (cursor) q.set('cursor', cursor);
        const page = await api(`/experiments/${enc(id!)}/cases?${q.toString()}`, ExperimentCasePageSchema, { signal });
        all.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      return all;
    },
    refetchInterval: isRunning ? 10_000 : false,
    placeholderData: (previous) => previous,
  });
}

export function useStartExperiment() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateExperimentBody) => api('/experiments', ExperimentAcceptedSchema, { method: 'POST', body }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['experiments', 'list'] }),
  });
}

/** DELETE /experiments/{id} of a running experiment: cancels it (answers its detail). */
export function useCancelExperiment() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api(`/experiments/${enc(id)}`, ExperimentDetailSchema, { method: 'DELETE' }),
    onSuccess: (detail) => {
      qc.setQueryData(evalKeys.experiment(detail.experiment_id), detail);
      void qc.invalidateQueries({ queryKey: ['experiments'] });
    },
  });
}

export function useExperimentCompare(left: string | null, right: string | null) {
  return useQuery({
    queryKey: evalKeys.compare(left ?? '', right ?? ''),
    enabled: left !== null && right !== null && left !== right,
    queryFn: ({ signal }) => api(`/experiments/compare?left=${enc(left!)}&right=${enc(right!)}`, ExperimentCompareSchema, { signal }),
    refetchInterval: (q) => (running(q.state.data?.left) || running(q.state.data?.right) ? 1500 : false),
  });
}
