// Set or clear a node's breakpoints (docs/playground-api.md, "Breakpoints and stepping"):
// before and after, for the session. Used by the graph view's node details and by a span of
// the run's node waterfall.
import { BREAKPOINT_WHEN, EVERY_NODE } from '../../../../shared/breakpoints.ts';
import { useBreakpoints, useToggleBreakpoint } from '../../api/breakpoints.ts';
import { errorMessage } from '../../api/client.ts';

export function BreakpointButtons({ sessionId, node }: { sessionId: string; node: string }) {
  const every = node === EVERY_NODE;
  const list = useBreakpoints(sessionId);
  const toggle = useToggleBreakpoint(sessionId);
  const has = (when: string) => (list.data ?? []).some((b) => b.node === node && b.when === when);
  return (
    <div className="breakpoints" role="group" aria-label={`Breakpoints on ${node}`} data-testid="breakpoint-buttons">
      {(every ? (['before'] as const) : BREAKPOINT_WHEN).map((when) => (
        <button
          key={when}
          type="button"
          className={`btn btn--small${has(when) ? ' btn--primary' : ''}`}
          aria-pressed={has(when)}
          disabled={toggle.isPending || list.isLoading}
          data-testid={`breakpoint-${when}`}
          onClick={() => toggle.mutate({ node, when, on: !has(when) })}
        >
          {has(when) ? '●' : '○'} {every ? 'Pause before every node (step mode)' : `Pause ${when}`}
        </button>
      ))}
      {toggle.error ? <p className="error small">{errorMessage(toggle.error)}</p> : null}
    </div>
  );
}

/** The session's breakpoints; one on a node the loaded graph no longer has is shown as missing. */
export function BreakpointList({ sessionId }: { sessionId: string }) {
  const list = useBreakpoints(sessionId);
  const toggle = useToggleBreakpoint(sessionId);
  const items = list.data ?? [];
  if (!items.length) return null;
  return (
    <section className="breakpoint-list" data-testid="breakpoint-list" aria-labelledby="breakpoint-list-title">
      <h3 id="breakpoint-list-title" className="subhead">
        Breakpoints of this session
      </h3>
      <ul>
        {items.map((b) => (
          <li key={`${b.node}-${b.when}`} data-testid="breakpoint-item" data-node={b.node} data-when={b.when} data-found={String(b.found)}>
            {b.node === EVERY_NODE ? <span>every node</span> : <code>{b.node}</code>} <span className="muted">{b.when}</span>
            {b.found === false ? <span className="breakpoint-missing small">not in the graph</span> : null}{' '}
            <button type="button" className="btn btn--small" onClick={() => toggle.mutate({ node: b.node, when: b.when, on: false })}>
              Clear
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
