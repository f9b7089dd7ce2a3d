// The open project (the studio's unversioned /api/project, /api/project/file, /api/save;
// docs/studio-api.md) and where a node lives in its source (/source-targets/{node}).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ProjectFileSchema,
  ProjectViewSchema,
  SaveReplySchema,
  SourceTargetsReplySchema,
  type ProjectDiagnostic,
  type ProjectFile,
  type ProjectView,
  type SaveRequest,
  type SourceTarget,
} from '../../../shared/studio-api.ts';
import { api } from './client.ts';

export type { ProjectDiagnostic, ProjectFile, SourceTarget };
/** GET /api/project. */
export type ProjectStatus = ProjectView;

export const projectKeys = {
  project: ['project'] as const,
  targets: (node: string) => ['source-targets', node] as const,
  file: (path: string) => ['project-file', path] as const,
};

/** The project's state, kept fresh: an edit on disk shows up within a couple of seconds. */
export function useProject() {
  return useQuery({
    queryKey: projectKeys.project,
    queryFn: ({ signal }) => api('/api/project', ProjectViewSchema, { signal }),
    refetchInterval: 1500,
  });
}

export function useSourceTargets(node: string | null) {
  return useQuery({
    queryKey: projectKeys.targets(node ?? ''),
    queryFn: ({ signal }) => api(`/source-targets/${encodeURIComponent(node!)}`, SourceTargetsReplySchema, { signal }),
    enabled: node !== null,
    retry: false,
  });
}

/** A project file now, or as it was when run `runId` ran. */
export function fetchProjectFile(path: string, runId?: string, signal?: AbortSignal): Promise<ProjectFile> {
  return api(`/api/project/file?path=${encodeURIComponent(path)}${runId ? `&run=${encodeURIComponent(runId)}` : ''}`, ProjectFileSchema, { signal });
}

/** Files whose content differs between a run's code and the files on disk (added, changed, removed). */
export function changedSince(runFiles: Record<string, string>, now: Record<string, string>): string[] {
  const paths = new Set([...Object.keys(runFiles), ...Object.keys(now)]);
  return [...paths].filter((p) => runFiles[p] !== now[p]).sort();
}

export function useSaveFile() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: SaveRequest) => api('/api/save', SaveReplySchema, { method: 'POST', body }),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: projectKeys.project });
      void qc.invalidateQueries({ queryKey: ['source-targets'] });
    },
  });
}

/** The target a node's "Go to source" opens: its function, else where it is added. */
export function primaryTarget(targets: SourceTarget[], prefer?: SourceTarget['kind']): SourceTarget | undefined {
  const preferred = prefer ? targets.find((t) => t.kind === prefer) : undefined;
  if (preferred) return preferred;
  return targets.find((t) => t.kind === 'function') ?? targets.find((t) => t.kind === 'subgraph') ?? targets.find((t) => t.kind === 'add_node') ?? targets[0];
}
