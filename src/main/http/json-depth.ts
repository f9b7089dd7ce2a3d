// How deep a parsed JSON value nests, measured without recursion, so a hostile document can
// neither overflow the stack here nor reach code that would (JSON.stringify, SQLite's JSON
// functions, which stop at 1,000 levels). docs/security.md states the limit.

/** Objects and arrays nested deeper than this are refused, in every request body. */
export const MAX_JSON_DEPTH = 64;

/** True when `value` nests objects/arrays more than `max` levels deep (`{}` is depth 1). */
export function exceedsDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
