// Edges to nodes the graph does not have, found on the uncompiled StateGraph before it is
// compiled: LangGraph's own check stops at the first problem, often with a message about
// another node ("Node `answer` is not reachable" for a typo in an edge to it). Each unknown
// name is reported with the closest existing node: "edge from 'classify' to unknown node
// 'anser': did you mean 'answer'?".
import fs from 'node:fs';
import path from 'node:path';
import { END, START } from '@langchain/langgraph';
import { didYouMean } from '../../common/nearest.ts';
import { lineCol } from '../../common/json-locate.ts';

/** The parts of an uncompiled LangGraph graph this check reads. */
interface GraphBuilder {
  nodes: Record<string, { ends?: string[] } | undefined>;
  edges?: Iterable<[string, string]>;
  /** StateGraph: plain edges plus each start of a multi-start (waiting) edge. */
  allEdges?: Iterable<[string, string]>;
  branches?: Record<string, Record<string, { ends?: Record<string, string> } | undefined>>;
}

export interface UnknownNode {
  /** The unknown name, as written in the source. */
  name: string;
  message: string;
}

/** Every edge, conditional edge and `ends` entry naming a node that does not exist. */
export function unknownNodeEdges(graph: unknown): UnknownNode[] {
  const builder = graph as GraphBuilder;
  if (!builder || typeof builder.nodes !== 'object') return [];
  const nodes = Object.keys(builder.nodes);
  const known = new Set(nodes);
  const isNode = (name: string, role: 'source' | 'target') => known.has(name) || name === (role === 'source' ? START : END);
  // The hint ends the message: ": did you mean 'answer'?", else the list of nodes.
  const hint = (name: string) => didYouMean(name, nodes) || ` (nodes: ${nodes.join(', ') || 'none'})`;
  const out: UnknownNode[] = [];
  const seen = new Set<string>();
  const add = (name: string, message: string) => {
    if (seen.has(message)) return;
    seen.add(message);
    out.push({ name, message });
  };

  for (const [source, target] of builder.allEdges ?? builder.edges ?? []) {
    if (!isNode(source, 'source')) add(source, `edge from unknown node '${source}' to ${label(target)}${hint(source)}`);
    if (!isNode(target, 'target')) add(target, `edge from ${label(source)} to unknown node '${target}'${hint(target)}`);
  }
  for (const [source, byName] of Object.entries(builder.branches ?? {})) {
    if (!isNode(source, 'source')) add(source, `conditional edge from unknown node '${source}'${hint(source)}`);
    for (const branch of Object.values(byName)) {
      for (const target of Object.values(branch?.ends ?? {})) {
        if (!isNode(target, 'target')) add(target, `conditional edge from ${label(source)} to unknown node '${target}'${hint(target)}`);
      }
    }
  }
  for (const [node, spec] of Object.entries(builder.nodes)) {
    for (const target of spec?.ends ?? []) {
      if (!isNode(target, 'target')) add(target, `node '${node}' lists unknown node '${target}' in its ends${hint(target)}`);
    }
  }
  return out;
}

function label(name: string): string {
  return name === START ? 'START' : name === END ? 'END' : `'${name}'`;
}

/** Where `name` is first written as a string literal in the project's files (tried in order). */
export function quotedNameLocation(dir: string, files: string[], name: string): { file: string; line: number; column: number } | null {
  const literal = new RegExp(`(['"\`])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\1`);
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(dir, file), 'utf8');
    } catch {
      continue;
    }
    const m = literal.exec(text);
    if (m) return { file, ...lineCol(text, m.index) };
  }
  return null;
}
