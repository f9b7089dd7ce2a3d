import { describe, expect, it } from 'vitest';
import { nodeLines } from './breakpointGutter.ts';

const reply = (node_id: string, targets: { kind: string; path: string; line: number }[]) => ({ node_id, targets });

describe('the source gutter’s lines', () => {
  it('puts each node at its function’s first line in the open file (else its subgraph), one node per line', () => {
    const replies = [
      reply('router', [
        { kind: 'add_node', path: 'src/graph.ts', line: 113 },
        { kind: 'function', path: 'src/graph.ts', line: 60 },
      ]),
      reply('guardrail', [{ kind: 'function', path: 'src/guard.ts', line: 3 }]),
      reply('inner', [{ kind: 'subgraph', path: 'src/graph.ts', line: 20 }]),
      reply('alias', [{ kind: 'function', path: 'src/graph.ts', line: 60 }]),
      undefined,
    ];
    expect(nodeLines('src/graph.ts', replies)).toEqual([
      { line: 20, node: 'inner' },
      { line: 60, node: 'router' },
    ]);
    expect(nodeLines('src/guard.ts', replies)).toEqual([{ line: 3, node: 'guardrail' }]);
    expect(nodeLines('README.md', replies)).toEqual([]);
  });
});
