// Where a graph node lives in the project's source (spec 4.3 `/source-targets/{node_id}`),
// found by syntax-tree analysis with ts-morph: the `addNode` call, the node's function
// (through imports, re-exports and factories that return it), the branches its `fanOut`
// runs, the conditional-edge functions that route from or to it, and the evaluators the
// manifest attaches to it. Reads the project's text; never runs it.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Node, SyntaxKind, type CallExpression, type Project, type SourceFile } from 'ts-morph';
import type { SourceTarget, TargetKind } from '../../../shared/studio-api.ts';

export type { SourceTarget, TargetKind };

export interface EvaluatorDeclaration {
  name: string;
  node?: string;
  file: string;
  export: string;
  /** Where the declaration is in agent.json. */
  manifestLine: number;
  manifestColumn: number;
  manifestEndLine: number;
  manifestSnippet: string;
}

const MAX_DEPTH = 6;

export class TargetFinder {
  private readonly hashes = new Map<SourceFile, string>();

  constructor(
    private readonly project: Project,
    private readonly projectDir: string,
  ) {}

  /** Node ids the graph adds, in source order. */
  nodeIds(): string[] {
    return [...new Set(this.addNodeCalls().map((c) => c.id))];
  }

  find(nodeId: string, evaluators: EvaluatorDeclaration[], manifestText: string, manifestPath: string): SourceTarget[] {
    const out: SourceTarget[] = [];
    const seen = new Set<string>();
    const push = (t: SourceTarget | null) => {
      if (!t) return;
      const key = `${t.kind}:${t.path}:${t.line}:${t.column}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(t);
      }
    };
    const calls = this.addNodeCalls().filter((c) => c.id === nodeId);
    for (const call of calls) {
      push(this.target('add_node', call.call, call.start));
      if (call.action) for (const fn of this.functionsOf(call.action, 0)) push(this.target(fn.kind, fn.node));
    }
    if (calls.length === 0) return [];
    for (const route of this.routesOf(nodeId)) push(this.target(route.kind, route.node));
    const manifestHash = sha256(manifestText);
    for (const e of evaluators.filter((ev) => ev.node === nodeId)) {
      out.push({
        kind: 'evaluator',
        path: manifestPath,
        line: e.manifestLine,
        column: e.manifestColumn,
        end_line: e.manifestEndLine,
        snippet: e.manifestSnippet,
        file_sha256: manifestHash,
      });
      push(this.exportedFunction(e.file, e.export));
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------

  /** Every `.addNode('id', action)` (and `.addNode({id: action})`) in the project. */
  private addNodeCalls(): { id: string; call: Node; start: Node; action: Node | undefined }[] {
    const out: { id: string; call: Node; start: Node; action: Node | undefined }[] = [];
    for (const file of this.projectFiles()) {
      for (const call of file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
        if (calleeName(call) !== 'addNode') continue;
        const [first, second] = call.getArguments();
        // The target starts at `addNode`, not at the start of a chained builder expression.
        const at = (
          Node.isPropertyAccessExpression(call.getExpression()) ? (call.getExpression() as import('ts-morph').PropertyAccessExpression).getNameNode() : call
        ) as Node;
        if (first && Node.isStringLiteral(first)) out.push({ id: first.getLiteralValue(), call, start: at, action: second });
        else if (first && Node.isObjectLiteralExpression(first)) {
          for (const prop of first.getProperties()) {
            if (Node.isPropertyAssignment(prop)) out.push({ id: unquote(prop.getName()), call: prop, start: prop, action: prop.getInitializer() });
            else if (Node.isShorthandPropertyAssignment(prop)) out.push({ id: prop.getName(), call: prop, start: prop, action: prop.getNameNode() });
          }
        }
      }
    }
    return out;
  }

  /** The function(s) an expression denotes: inline, through identifiers and imports, and
   * through factories (the functions a called function returns). */
  private functionsOf(expr: Node, depth: number, kind: TargetKind = 'function'): { kind: TargetKind; node: Node }[] {
    if (depth > MAX_DEPTH) return [];
    const e = unwrap(expr);
    if (Node.isArrowFunction(e) || Node.isFunctionExpression(e) || Node.isFunctionDeclaration(e) || Node.isMethodDeclaration(e)) {
      return [{ kind, node: e }, ...this.branchesOf(e, depth)];
    }
    if (Node.isCallExpression(e)) {
      const callee = e.getExpression();
      // `.compile()` of a StateGraph: the node is a subgraph.
      if (Node.isPropertyAccessExpression(callee) && callee.getName() === 'compile') return [{ kind: 'subgraph', node: e }];
      const out: { kind: TargetKind; node: Node }[] = [];
      for (const decl of this.declarationsOf(callee)) {
        const fn = functionNode(decl);
        if (!fn) continue;
        out.push({ kind: 'factory', node: fn });
        for (const ret of returnedExpressions(fn)) out.push(...this.functionsOf(ret, depth + 1, kind));
      }
      return out;
    }
    if (Node.isIdentifier(e) || Node.isPropertyAccessExpression(e) || Node.isElementAccessExpression(e)) {
      const out: { kind: TargetKind; node: Node }[] = [];
      for (const decl of this.declarationsOf(e)) {
        if (Node.isFunctionDeclaration(decl) || Node.isMethodDeclaration(decl)) out.push({ kind, node: decl }, ...this.branchesOf(decl, depth));
        else if (Node.isVariableDeclaration(decl) || Node.isPropertyAssignment(decl)) {
          const init = decl.getInitializer();
          if (init) out.push(...this.functionsOf(init, depth + 1, kind));
        } else if (Node.isShorthandPropertyAssignment(decl)) {
          out.push(...this.valueOfShorthand(decl, depth, kind));
        }
      }
      return out;
    }
    return [];
  }

  /** The branches a node function runs through `fanOut(items, branch)`; a branch that
   * dispatches through an object of functions (`skills[intent](...)`) names each of them. */
  private branchesOf(fn: Node, depth: number): { kind: TargetKind; node: Node }[] {
    const out: { kind: TargetKind; node: Node }[] = [];
    for (const call of fn.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      if (calleeName(call) !== 'fanOut') continue;
      const branch = call.getArguments()[1];
      if (!branch) continue;
      const found = this.functionsOf(branch, depth + 1, 'branch');
      out.push(...found);
      for (const b of found) {
        for (const inner of b.node.getDescendantsOfKind(SyntaxKind.CallExpression)) {
          const callee = inner.getExpression();
          if (!Node.isElementAccessExpression(callee)) continue;
          const table = this.declarationsOf(callee.getExpression()).flatMap((d) => (Node.isVariableDeclaration(d) ? [d.getInitializer()] : []));
          for (const init of table) {
            if (!init || !Node.isObjectLiteralExpression(unwrap(init))) continue;
            for (const prop of (unwrap(init) as import('ts-morph').ObjectLiteralExpression).getProperties()) {
              if (Node.isShorthandPropertyAssignment(prop)) out.push(...this.valueOfShorthand(prop, depth + 1, 'branch'));
              else if (Node.isPropertyAssignment(prop) && prop.getInitializer()) out.push(...this.functionsOf(prop.getInitializer()!, depth + 2, 'branch'));
            }
          }
        }
      }
    }
    return out;
  }

  /** `{ refund }`: the function the name `refund` refers to where the object is written. */
  private valueOfShorthand(prop: import('ts-morph').ShorthandPropertyAssignment, depth: number, kind: TargetKind): { kind: TargetKind; node: Node }[] {
    let symbol = prop.getValueSymbol();
    if (symbol?.isAlias()) symbol = symbol.getAliasedSymbol() ?? symbol;
    const out: { kind: TargetKind; node: Node }[] = [];
    for (const decl of symbol?.getDeclarations() ?? []) {
      if (Node.isFunctionDeclaration(decl)) out.push({ kind, node: decl });
      else if (Node.isVariableDeclaration(decl) && decl.getInitializer()) out.push(...this.functionsOf(decl.getInitializer()!, depth + 1, kind));
    }
    return out;
  }

  /** Conditional-edge functions routing from the node, or able to route to it. */
  private routesOf(nodeId: string): { kind: TargetKind; node: Node }[] {
    const out: { kind: TargetKind; node: Node }[] = [];
    for (const file of this.projectFiles()) {
      for (const call of file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
        if (calleeName(call) !== 'addConditionalEdges') continue;
        const [source, router, ends] = call.getArguments();
        if (!router) continue;
        const from = source && Node.isStringLiteral(source) && source.getLiteralValue() === nodeId;
        const to = ends ? mentions(ends, nodeId) : false;
        if (!from && !to) continue;
        const fns = this.functionsOf(router, 0, from ? 'route_from' : 'route_to');
        out.push(...(fns.length ? fns : [{ kind: (from ? 'route_from' : 'route_to') as TargetKind, node: router }]));
      }
    }
    return out;
  }

  private exportedFunction(relative: string, exportName: string): SourceTarget | null {
    const file = this.project.getSourceFile(path.join(this.projectDir, relative));
    if (!file) return null;
    const decls = file.getExportedDeclarations().get(exportName) ?? [];
    const fn = decls.map((d) => functionNode(d) ?? d)[0];
    return fn ? this.target('evaluator_function', fn) : null;
  }

  /** Declarations of an identifier or property access, through import and export aliases. */
  private declarationsOf(expr: Node): Node[] {
    let symbol = expr.getSymbol();
    if (!symbol) return [];
    if (symbol.isAlias()) symbol = symbol.getAliasedSymbol() ?? symbol;
    return symbol.getDeclarations();
  }

  private projectFiles(): SourceFile[] {
    return this.project.getSourceFiles().filter((f) => this.isProjectFile(f));
  }

  private isProjectFile(f: SourceFile): boolean {
    const rel = path.relative(this.projectDir, f.getFilePath());
    return !rel.startsWith('..') && !path.isAbsolute(rel) && !rel.split(path.sep).includes('node_modules');
  }

  /** A target over `node`, optionally starting later, at `from` (inside it). */
  private target(kind: TargetKind, node: Node, from: Node = node): SourceTarget | null {
    const file = node.getSourceFile();
    if (!this.isProjectFile(file)) return null;
    const startPos = from.getStart();
    const start = file.getLineAndColumnAtPos(startPos);
    const endLine = file.getLineAndColumnAtPos(node.getEnd()).line;
    let hash = this.hashes.get(file);
    if (!hash) {
      hash = sha256(file.getFullText());
      this.hashes.set(file, hash);
    }
    return {
      kind,
      path: path.relative(this.projectDir, file.getFilePath()).split(path.sep).join('/'),
      line: start.line,
      column: start.column,
      end_line: endLine,
      snippet: snippetOf(file.getFullText().slice(startPos, node.getEnd())),
      file_sha256: hash,
    };
  }
}

function calleeName(call: CallExpression): string | undefined {
  const callee = call.getExpression();
  if (Node.isPropertyAccessExpression(callee)) return callee.getName();
  if (Node.isIdentifier(callee)) return callee.getText();
  return undefined;
}

/** Strips parentheses, `as`, `satisfies` and non-null assertions. */
function unwrap(node: Node): Node {
  let n = node;
  for (;;) {
    if (Node.isParenthesizedExpression(n) || Node.isAsExpression(n) || Node.isSatisfiesExpression(n) || Node.isNonNullExpression(n)) n = n.getExpression();
    else return n;
  }
}

function functionNode(decl: Node): Node | undefined {
  if (Node.isFunctionDeclaration(decl) || Node.isMethodDeclaration(decl) || Node.isArrowFunction(decl) || Node.isFunctionExpression(decl)) return decl;
  if (Node.isVariableDeclaration(decl)) {
    const init = decl.getInitializer();
    const u = init ? unwrap(init) : undefined;
    if (u && (Node.isArrowFunction(u) || Node.isFunctionExpression(u))) return u;
  }
  return undefined;
}

/** What a function returns: its `return` expressions, or an arrow's expression body. */
function returnedExpressions(fn: Node): Node[] {
  if (Node.isArrowFunction(fn)) {
    const body = fn.getBody();
    if (!Node.isBlock(body)) return [body];
  }
  const out: Node[] = [];
  for (const ret of fn.getDescendantsOfKind(SyntaxKind.ReturnStatement)) {
    // Only this function's own returns, not those of functions nested in it.
    if (ret.getFirstAncestor((a) => Node.isFunctionLikeDeclaration(a) || Node.isArrowFunction(a) || Node.isFunctionExpression(a)) !== fn) continue;
    const e = ret.getExpression();
    if (e) out.push(e);
  }
  return out;
}

function mentions(ends: Node, nodeId: string): boolean {
  const e = unwrap(ends);
  if (Node.isArrayLiteralExpression(e)) return e.getElements().some((el) => Node.isStringLiteral(el) && el.getLiteralValue() === nodeId);
  if (Node.isObjectLiteralExpression(e)) {
    return e
      .getProperties()
      .some(
        (p) =>
          Node.isPropertyAssignment(p) &&
          Node.isStringLiteral(unwrap(p.getInitializer() ?? p)) &&
          (unwrap(p.getInitializer()!) as import('ts-morph').StringLiteral).getLiteralValue() === nodeId,
      );
  }
  return false;
}

function unquote(name: string): string {
  return /^(['"`]).*\1$/.test(name) ? name.slice(1, -1) : name;
}

function snippetOf(text: string): string {
  const lines = text
    .split('\n')
    .slice(0, 3)
    .map((l) => l.trimEnd());
  const s = lines.join('\n');
  return s.length > 240 ? `${s.slice(0, 240)}…` : s;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
