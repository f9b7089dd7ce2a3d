// UI state (zustand): what is selected and shown. Server data lives in react-query, never
// here. The selection is mirrored in the URL hash so a reload comes back to the same run.
import { create } from 'zustand';

export type MainView = 'run' | 'graph' | 'compare' | 'source' | 'evals';

export type ComposerMode = { kind: 'new' } | { kind: 'resume'; runId: string };

/** What "Go to source" asks the source view to open: a node, and where known its file and line. */
export interface SourceTarget {
  node?: string;
  file?: string;
  line?: number;
  column?: number;
  /** Which of the node's targets to open first (a score opens its evaluator declaration). */
  prefer?: 'evaluator';
  /** Open the file as it was when this run ran (read-only). */
  runId?: string;
}

/** The session's main area: one run's timeline, the whole conversation, or the thread's state history. */
export type SessionMode = 'run' | 'conversation' | 'state';

/** Which checkpoint of which run the State panel opens at. */
export interface StateFocus {
  runId: string;
  checkpointId: string;
}

/** A 409 active_run_conflict answer (spec 4.3 rule 2), shown until dismissed or the run ends. */
export interface RunConflict {
  activeRunId: string;
  message: string;
}

interface UiState {
  sessionId: string | null;
  runId: string | null;
  view: MainView;
  /** The runs of the compare view: left is the baseline, right the one compared with it. */
  compareLeft: string | null;
  compareRight: string | null;
  /** Shows the compare view for two runs (right may be picked there). */
  openCompare(left: string | null, right: string | null): void;
  /** The evals view (docs/studio-ui.md, Evals): the open dataset, experiment, or compare of
   * two experiments (left the baseline). */
  evalsDataset: string | null;
  experimentId: string | null;
  expLeft: string | null;
  expRight: string | null;
  openDataset(name: string | null): void;
  openExperiment(id: string): void;
  openExperimentCompare(left: string, right: string): void;
  /** The session's main area: one run's timeline, or the whole conversation. */
  sessionMode: SessionMode;
  setSessionMode(mode: SessionMode): void;
  /** A checkpoint to open in a run's State panel (a span, a graph node, the thread's history). */
  stateFocus: StateFocus | null;
  openState(sessionId: string, runId: string, checkpointId: string): void;
  /** A node span to open in the run's timeline (from the compare view's divergence). */
  focusSpanId: string | null;
  showSpan(sessionId: string, runId: string, spanId: string): void;
  composerMode: ComposerMode;
  /** The run that holds the project's single active-run slot, when the UI knows it. */
  blockingRunId: string | null;
  conflict: RunConflict | null;
  /** The graph node last selected; the source view of a later release opens it. */
  selectedNodeId: string | null;
  /** The last "Go to source" request (a span, a node): the source view opens it. */
  sourceTarget: SourceTarget | null;
  openSource(target: SourceTarget): void;
  selectSession(sessionId: string | null): void;
  selectRun(sessionId: string, runId: string | null): void;
  setView(view: MainView): void;
  startResume(runId: string): void;
  cancelResume(): void;
  setBlockingRun(runId: string | null): void;
  setConflict(conflict: RunConflict | null): void;
  selectNode(nodeId: string | null): void;
}

type HashState = Pick<UiState, 'sessionId' | 'runId' | 'view' | 'compareLeft' | 'compareRight' | 'evalsDataset' | 'experimentId' | 'expLeft' | 'expRight'>;

export function parseHash(hash: string): HashState {
  const m = /^#\/(?:sessions\/([^/?]+))?(?:\/runs\/([^/?]+))?(?:\/?(graph|compare|source|evals))?(?:\?(.*))?$/.exec(hash);
  const view = (m?.[3] as MainView | undefined) ?? 'run';
  const query = new URLSearchParams(m?.[4] ?? '');
  return {
    sessionId: m?.[1] ? decodeURIComponent(m[1]) : null,
    runId: m?.[2] ? decodeURIComponent(m[2]) : null,
    view,
    compareLeft: view === 'compare' ? query.get('left') : null,
    compareRight: view === 'compare' ? query.get('right') : null,
    evalsDataset: view === 'evals' ? query.get('dataset') : null,
    experimentId: view === 'evals' ? query.get('experiment') : null,
    expLeft: view === 'evals' ? query.get('left') : null,
    expRight: view === 'evals' ? query.get('right') : null,
  };
}

export function hashFor(s: HashState): string {
  let h = '#/';
  if (s.sessionId) h += `sessions/${encodeURIComponent(s.sessionId)}`;
  if (s.sessionId && s.runId) h += `/runs/${encodeURIComponent(s.runId)}`;
  if (s.view !== 'run') h += `${s.sessionId ? '/' : ''}${s.view}`;
  if (s.view === 'compare' && (s.compareLeft || s.compareRight)) {
    const q = new URLSearchParams();
    if (s.compareLeft) q.set('left', s.compareLeft);
    if (s.compareRight) q.set('right', s.compareRight);
    h += `?${q.toString()}`;
  }
  if (s.view === 'evals') {
    const q = new URLSearchParams();
    if (s.evalsDataset) q.set('dataset', s.evalsDataset);
    if (s.experimentId) q.set('experiment', s.experimentId);
    if (s.expLeft && s.expRight) {
      q.set('left', s.expLeft);
      q.set('right', s.expRight);
    }
    if (q.size) h += `?${q.toString()}`;
  }
  return h;
}

const initial: HashState =
  typeof window === 'undefined'
    ? {
        sessionId: null,
        runId: null,
        view: 'run',
        compareLeft: null,
        compareRight: null,
        evalsDataset: null,
        experimentId: null,
        expLeft: null,
        expRight: null,
      }
    : parseHash(window.location.hash);

export const useUi = create<UiState>()((set) => ({
  ...initial,
  composerMode: { kind: 'new' },
  blockingRunId: null,
  conflict: null,
  selectedNodeId: null,
  sourceTarget: null,
  openSource: (sourceTarget) => set({ sourceTarget, view: 'source' }),
  openCompare: (compareLeft, compareRight) => set({ compareLeft, compareRight, view: 'compare' }),
  openDataset: (evalsDataset) => set({ evalsDataset, experimentId: null, expLeft: null, expRight: null, view: 'evals' }),
  openExperiment: (experimentId) => set({ experimentId, expLeft: null, expRight: null, view: 'evals' }),
  openExperimentCompare: (expLeft, expRight) => set({ expLeft, expRight, experimentId: null, view: 'evals' }),
  focusSpanId: null,
  sessionMode: 'run',
  setSessionMode: (sessionMode) => set({ sessionMode }),
  stateFocus: null,
  openState: (sessionId, runId, checkpointId) => set({ sessionId, runId, view: 'run', sessionMode: 'run', stateFocus: { runId, checkpointId } }),
  showSpan: (sessionId, runId, focusSpanId) => set({ sessionId, runId, focusSpanId, view: 'run' }),
  selectSession: (sessionId) =>
    set((s) => (s.sessionId === sessionId ? { view: 'run' } : { sessionId, runId: null, view: 'run', composerMode: { kind: 'new' } })),
  selectRun: (sessionId, runId) =>
    set((s) => ({
      sessionId,
      runId,
      // On the graph, choosing a run shows its path there; from anywhere else, its timeline.
      view: s.view === 'graph' ? 'graph' : 'run',
      sessionMode: 'run',
      // A resume draft belongs to its run; leaving it goes back to a new message.
      composerMode: s.composerMode.kind === 'resume' && s.composerMode.runId !== runId ? { kind: 'new' } : s.composerMode,
    })),
  setView: (view) => set({ view }),
  startResume: (runId) => set({ composerMode: { kind: 'resume', runId } }),
  cancelResume: () => set({ composerMode: { kind: 'new' } }),
  setBlockingRun: (blockingRunId) => set({ blockingRunId }),
  setConflict: (conflict) => set({ conflict }),
  selectNode: (selectedNodeId) => set({ selectedNodeId }),
}));

/** Keeps the URL hash and the selection in step (back/forward and reload work). */
export function syncUiWithHash(): () => void {
  const unsubscribe = useUi.subscribe((s) => {
    const next = hashFor(s);
    if (window.location.hash !== next) window.history.replaceState(null, '', next);
  });
  const onHashChange = () => {
    const parsed = parseHash(window.location.hash);
    const s = useUi.getState();
    if (hashFor(parsed) !== hashFor(s)) useUi.setState(parsed);
  };
  window.addEventListener('hashchange', onHashChange);
  return () => {
    unsubscribe();
    window.removeEventListener('hashchange', onHashChange);
  };
}
