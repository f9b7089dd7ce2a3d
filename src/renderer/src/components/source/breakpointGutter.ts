// Breakpoints in the source view's gutter (docs/studio-ui.md, "Breakpoints in the source"):
// the line where a graph node's function starts (GET /source-targets/{node} for each node
// of GET /graph: the studio's analysis, never the project run) carries a glyph; a click on
// it sets or clears the session's "pause before" on that node; one already set shows filled.
// While the selected run is paused at a breakpoint, the line of the node it paused before is
// highlighted. The editor says what it shows in `data-breakpoint-lines` ("line:node:on|off")
// and `data-paused-line` for tests and tools.
import { useQueries } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import type * as Monaco from 'monaco-editor';
import { SourceTargetsReplySchema } from '../../../../shared/studio-api.ts';
import { useBreakpoints, useRunPause, useToggleBreakpoint } from '../../api/breakpoints.ts';
import { api } from '../../api/client.ts';
import { projectKeys } from '../../api/project.ts';
import { useAgentGraph, useRun } from '../../api/queries.ts';
import { baseNode } from '../../lib/checkpoint-nav.ts';
import { useUi } from '../../state/ui.ts';

export interface GutterLine {
  line: number;
  node: string;
}

/** Lines of `path` where a node's function (else its subgraph) starts, one node per line. */
export function nodeLines(
  path: string,
  replies: readonly ({ node_id: string; targets: { kind: string; path: string; line: number }[] } | undefined)[],
): GutterLine[] {
  const byLine = new Map<number, string>();
  for (const r of replies) {
    const t = r?.targets.find((x) => x.kind === 'function' && x.path === path) ?? r?.targets.find((x) => x.kind === 'subgraph' && x.path === path);
    if (r && t && !byLine.has(t.line)) byLine.set(t.line, r.node_id);
  }
  return [...byLine].map(([line, node]) => ({ line, node })).sort((a, b) => a.line - b.line);
}

export function useBreakpointGutter(
  editor: Monaco.editor.IStandaloneCodeEditor | null,
  monaco: typeof Monaco | null,
  path: string | null,
  host: HTMLElement | null,
): void {
  const sessionId = useUi((s) => s.sessionId);
  const runId = useUi((s) => s.runId);
  const graph = useAgentGraph();
  const nodes = (graph.data?.nodes ?? []).filter((n) => n.kind === 'node').map((n) => n.id);
  const replies = useQueries({
    queries: nodes.map((node) => ({
      queryKey: projectKeys.targets(node),
      queryFn: ({ signal }: { signal: AbortSignal }) => api(`/source-targets/${encodeURIComponent(node)}`, SourceTargetsReplySchema, { signal }),
      enabled: path !== null,
      retry: false,
    })),
  });
  const repliesKey = JSON.stringify(replies.map((r) => r.data ?? null));
  const lines = useMemo(() => (path ? nodeLines(path, JSON.parse(repliesKey) as Parameters<typeof nodeLines>[1]) : []), [path, repliesKey]);
  const breakpoints = useBreakpoints(sessionId).data ?? [];
  const toggle = useToggleBreakpoint(sessionId ?? '-');
  const run = useRun(runId);
  const pause = useRunPause(runId ?? '-', run.data?.status === 'input_required' && run.data.reason === 'breakpoint');
  const pausedNode = pause.data?.state === 'paused' ? baseNode(pause.data.node) : null;
  const on = new Set(breakpoints.filter((b) => b.when === 'before').map((b) => b.node));
  const onKey = [...on].sort().join(',');

  // The latest lines and breakpoints for the click handler (registered once per editor).
  const latest = useRef({ lines, on, sessionId, toggle });
  latest.current = { lines, on, sessionId, toggle };
  useEffect(() => {
    if (!editor || !monaco) return;
    editor.updateOptions({ glyphMargin: true });
    const clicked = editor.onMouseDown((e) => {
      if (e.target.type !== monaco.editor.MouseTargetType.GUTTER_GLYPH_MARGIN || !e.target.position) return;
      const { lines: ls, on: set, sessionId: sid, toggle: t } = latest.current;
      const hit = ls.find((l) => l.line === e.target.position!.lineNumber);
      if (hit && sid) t.mutate({ node: hit.node, when: 'before', on: !set.has(hit.node) });
    });
    return () => clicked.dispose();
  }, [editor, monaco]);

  const collection = useRef<Monaco.editor.IEditorDecorationsCollection | null>(null);
  useEffect(() => {
    if (!editor || !monaco) return;
    collection.current ??= editor.createDecorationsCollection();
    const set = new Set(onKey ? onKey.split(',') : []);
    const shown = sessionId ? lines : [];
    const paused = shown.find((l) => l.node === pausedNode);
    collection.current.set([
      ...shown.map((l) => ({
        range: new monaco.Range(l.line, 1, l.line, 1),
        options: {
          glyphMarginClassName: `bp-glyph${set.has(l.node) ? ' bp-glyph--on' : ''}`,
          glyphMarginHoverMessage: { value: `${set.has(l.node) ? 'Clear the breakpoint before' : 'Pause before'} \`${l.node}\`` },
        },
      })),
      ...(paused ? [{ range: new monaco.Range(paused.line, 1, paused.line, 1), options: { isWholeLine: true, className: 'source-paused-line' } }] : []),
    ]);
    if (host) {
      host.dataset.breakpointLines = shown.map((l) => `${l.line}:${l.node}:${set.has(l.node) ? 'on' : 'off'}`).join(',');
      if (paused) host.dataset.pausedLine = `${paused.line}:${paused.node}`;
      else delete host.dataset.pausedLine;
    }
  }, [editor, monaco, host, lines, onKey, sessionId, pausedNode, path]);
}
