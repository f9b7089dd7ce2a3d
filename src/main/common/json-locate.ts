// Line and column of a field inside a JSON text (agent.json), for diagnostics and source
// targets. Shared by the runtime's loader and the studio's source analysis: it reads text only.
import { findNodeAtLocation, parseTree } from 'jsonc-parser';

export interface JsonPosition {
  line: number;
  column: number;
  endLine: number;
  /** Offset of the field (the property, when the value is one) in the text. */
  offset: number;
  length: number;
}

/** 1-based line and column of a 0-based offset. */
export function lineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line += 1;
      last = i;
    }
  }
  return { line, column: offset - last };
}

/** The position of `fieldPath`, or of its nearest existing parent; null for unparsable text. */
export function locateJson(text: string, fieldPath: (string | number)[]): JsonPosition | null {
  const root = parseTree(text);
  if (!root) return null;
  for (let n = fieldPath.length; n >= 0; n--) {
    const node = findNodeAtLocation(root, fieldPath.slice(0, n));
    if (node) {
      const target = node.parent?.type === 'property' ? node.parent : node;
      const start = lineCol(text, target.offset);
      return { ...start, endLine: lineCol(text, target.offset + target.length).line, offset: target.offset, length: target.length };
    }
  }
  return null;
}
