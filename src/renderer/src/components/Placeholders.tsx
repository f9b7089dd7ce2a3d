// Clearly labelled places for what a later release adds: the source view and bundle
// export/import. Each says what it will do and what to use meanwhile.
import type { GraphNode } from '../api/types.ts';
import type { SourceTarget } from '../state/ui.ts';

export function SourcePlaceholder({ node, target }: { node: GraphNode | null; target?: SourceTarget | null }) {
  return (
    <section className="placeholder placeholder--compact" data-testid="source-placeholder" aria-labelledby="source-title">
      <span className="placeholder__tag">Coming in a later release</span>
      <h2 id="source-title">Source view</h2>
      {target ? (
        <p data-testid="source-target">
          Asked to open {target.node ? <>node <code>{target.node}</code></> : 'the source'}
          {target.file ? (
            <>
              {' '}
              at <code data-testid="source-target-location">{`${target.file}${target.line ? `:${target.line}` : ''}${target.column ? `:${target.column}` : ''}`}</code>
            </>
          ) : null}
          . The source view will show that file at that line.
        </p>
      ) : node ? (
        <p>
          Selected node <code data-testid="selected-node">{node.id}</code>. The source view will open the code that defines it, found by syntax-tree
          analysis, and jump to its evaluation declarations.
        </p>
      ) : (
        <p>Select a node in the graph: the source view will open the code that defines it.</p>
      )}
    </section>
  );
}

export function BundleActionsPlaceholder() {
  return (
    <div className="bundle-actions" data-testid="bundle-actions" role="group" aria-label="Bundles (coming in a later release)">
      <button type="button" className="btn btn--small btn--ghost" disabled title="Export sessions and runs as a bundle: coming in a later release">
        Export bundle
      </button>
      <button type="button" className="btn btn--small btn--ghost" disabled title="Import a teammate’s bundle: coming in a later release">
        Import bundle
      </button>
    </div>
  );
}
