// The session's whole thread (docs/studio-ui.md, "The thread's history"): every checkpoint of
// every run, newest first, read a page at a time from GET /sessions/{id}/checkpoints (the list
// is virtualised: a thread of thousands of steps stays responsive). Each entry names the run
// and the node that wrote it; the newest (the thread's current state) is open at first, any
// other one click away, and "Open in its run" shows it in that run's State panel.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../api/client.ts';
import { useCheckpoint, useThreadCheckpoints } from '../../api/state.ts';
import { writtenBy } from '../../lib/checkpoint-nav.ts';
import { formatDateTime, shortId } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import { Detail } from './StatePanel.tsx';

const ROW_PX = 44;

export function ThreadHistory({ sessionId }: { sessionId: string }) {
  const list = useThreadCheckpoints(sessionId);
  const items = list.data ?? [];
  const [chosen, setChosen] = useState<string | null>(null);
  const selected = chosen ?? items[0]?.checkpoint_id ?? null;
  const entry = items.find((c) => c.checkpoint_id === selected);
  const detail = useCheckpoint(sessionId, selected);
  const openState = useUi((s) => s.openState);
  const selectRun = useUi((s) => s.selectRun);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 10 });
  // Scrolled to the end of what is loaded: the next page comes (as "Load more" would).
  const last = virtual.getVirtualItems().at(-1)?.index ?? -1;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = list;
  useEffect(() => {
    if (last >= items.length - 1 && items.length > 0 && hasNextPage && !isFetchingNextPage && (scroller.current?.scrollTop ?? 0) > 0) void fetchNextPage();
  }, [last, items.length, hasNextPage, isFetchingNextPage, fetchNextPage]);

  if (list.isPending) return <p className="muted small">Reading the thread’s checkpoints…</p>;
  if (list.isError)
    return (
      <p className="error small" role="alert">
        {errorMessage(list.error)}
      </p>
    );
  if (!items.length) return <p className="muted small">No checkpoint yet: the session’s runs have not reached the agent.</p>;
  return (
    <div className="thread-history state" data-testid="thread-history" data-count={items.length}>
      <div className="thread-history__list">
        <h2 className="subhead">Thread history · newest first</h2>
        <div ref={scroller} className="thread-history__scroll" data-testid="thread-history-scroll">
          <ol className="state__steps" aria-label="Checkpoints of the thread" style={{ height: virtual.getTotalSize(), position: 'relative' }}>
            {virtual.getVirtualItems().map((row) => {
              const c = items[row.index]!;
              return (
                <li key={c.checkpoint_id} style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_PX, transform: `translateY(${row.start}px)` }}>
                  <button
                    type="button"
                    className="state__step thread-history__entry"
                    aria-current={c.checkpoint_id === selected ? 'step' : undefined}
                    data-testid="thread-checkpoint"
                    data-index={row.index}
                    data-checkpoint-id={c.checkpoint_id}
                    data-run-id={c.run_id ?? ''}
                    data-writes={Object.keys(c.writes).join(',')}
                    onClick={() => setChosen(c.checkpoint_id)}
                  >
                    <span>
                      {row.index === 0 ? <strong>Now · </strong> : null}
                      {writtenBy(c)}
                    </span>
                    <span className="muted small">
                      {c.run_id ? `run ${shortId(c.run_id)}` : 'no run'} · {formatDateTime(c.created_at)}
                    </span>
                  </button>
                </li>
              );
            })}
          </ol>
        </div>
        {hasNextPage ? (
          <button type="button" className="btn btn--small" disabled={isFetchingNextPage} onClick={() => void fetchNextPage()} data-testid="thread-load-more">
            {isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        ) : (
          <p className="muted small" data-testid="thread-history-end">
            The thread’s first checkpoint.
          </p>
        )}
      </div>
      <div>
        {entry?.run_id ? (
          <p className="small">
            Written by run{' '}
            <button type="button" className="linkbtn" onClick={() => selectRun(sessionId, entry.run_id)} data-testid="thread-checkpoint-run">
              <code>{shortId(entry.run_id)}</code>
            </button>{' '}
            <button
              type="button"
              className="btn btn--small"
              onClick={() => openState(sessionId, entry.run_id!, entry.checkpoint_id)}
              data-testid="thread-open-in-run"
            >
              Open in its run
            </button>
          </p>
        ) : null}
        {detail.isError ? (
          <p className="error small" role="alert">
            {errorMessage(detail.error)}
          </p>
        ) : detail.data ? (
          <Detail runId={detail.data.run_id} detail={detail.data} />
        ) : (
          <p className="muted small">Reading the state…</p>
        )}
      </div>
    </div>
  );
}
