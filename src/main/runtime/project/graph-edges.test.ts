import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { quotedNameLocation, unknownNodeEdges } from './graph-edges.ts';

const State = Annotation.Root({ text: Annotation<string> });
const noop = () => ({});

function graph() {
  return new StateGraph(State).addNode('classify', noop).addNode('answer', noop).addNode('escalate', noop);
}

describe('unknownNodeEdges', () => {
  it('accepts a graph whose edges all name its nodes', () => {
    const g = graph()
      .addEdge(START, 'classify')
      .addConditionalEdges('classify', () => 'answer', { answer: 'answer', escalate: 'escalate' })
      .addEdge(['answer', 'escalate'], 'classify')
      .addEdge('classify', END);
    expect(unknownNodeEdges(g)).toEqual([]);
  });

  it('names an unknown edge target and the closest node', () => {
    const g = graph()
      .addEdge(START, 'classify')
      .addEdge('classify', 'anser' as 'answer')
      .addEdge('answer', END);
    expect(unknownNodeEdges(g)).toEqual([{ name: 'anser', message: "edge from 'classify' to unknown node 'anser': did you mean 'answer'?" }]);
  });

  it('names an unknown edge source', () => {
    const g = graph()
      .addEdge(START, 'classify')
      .addEdge('clasify' as 'classify', 'answer');
    expect(unknownNodeEdges(g).map((u) => u.message)).toEqual(["edge from unknown node 'clasify' to 'answer': did you mean 'classify'?"]);
  });

  it('lists the nodes when no name is close', () => {
    const g = graph()
      .addEdge(START, 'classify')
      .addEdge('classify', 'zzz' as 'answer');
    expect(unknownNodeEdges(g).map((u) => u.message)).toEqual(["edge from 'classify' to unknown node 'zzz' (nodes: classify, answer, escalate)"]);
  });

  it('checks the path map of a conditional edge (object and list forms)', () => {
    const g = graph()
      .addEdge(START, 'classify')
      .addConditionalEdges('classify', () => 'a', { a: 'answer', e: 'escalte' as 'escalate' })
      .addConditionalEdges('answer', () => 'x', ['escalate', 'ansewr' as 'answer']);
    expect(unknownNodeEdges(g).map((u) => u.message)).toEqual([
      "conditional edge from 'classify' to unknown node 'escalte': did you mean 'escalate'?",
      "conditional edge from 'answer' to unknown node 'ansewr': did you mean 'answer'?",
    ]);
  });

  it('checks the ends a node declares and the start of an edge to END', () => {
    const g = new StateGraph(State)
      .addNode('classify', noop, { ends: ['answr'] })
      .addNode('answer', noop)
      .addEdge(START, 'classify')
      .addEdge('anwser' as 'answer', END);
    expect(unknownNodeEdges(g).map((u) => u.message)).toEqual([
      "edge from unknown node 'anwser' to END: did you mean 'answer'?",
      "node 'classify' lists unknown node 'answr' in its ends: did you mean 'answer'?",
    ]);
  });

  it('ignores what is not a graph', () => {
    expect(unknownNodeEdges(null)).toEqual([]);
    expect(unknownNodeEdges({})).toEqual([]);
  });
});

describe('quotedNameLocation', () => {
  it('finds the first string literal naming the node, trying files in order', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'graph-edges-'));
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src/graph.ts'), "const x = 1;\nexport const g = builder\n  .addEdge('classify', 'anser');\n");
    fs.writeFileSync(path.join(dir, 'src/other.ts'), '"anser"');
    expect(quotedNameLocation(dir, ['src/missing.ts', 'src/graph.ts', 'src/other.ts'], 'anser')).toEqual({ file: 'src/graph.ts', line: 3, column: 24 });
    expect(quotedNameLocation(dir, ['src/graph.ts'], 'ans')).toBeNull();
  });
});
