// Node module-resolution hook (registered once with module.register). A project module
// imported as `file.ts?agent-gen=N&agent-root=DIR` passes the same query on to every file
// it imports inside DIR, so each registry generation gets fresh copies of the project's own
// files while packages (LangGraph, LangChain, the SDK) stay single, shared instances: a
// reload re-reads edited sources without loading the dependency tree again.
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  const parent = context.parentURL;
  if (!parent || !parent.includes('agent-gen=') || !result.url.startsWith('file:')) return result;
  const parentUrl = new URL(parent);
  const gen = parentUrl.searchParams.get('agent-gen');
  const root = parentUrl.searchParams.get('agent-root');
  if (!gen || !root) return result;
  const child = new URL(result.url);
  const inside = child.pathname.startsWith(root.endsWith('/') ? root : `${root}/`) && !child.pathname.includes('/node_modules/');
  if (!inside || child.searchParams.has('agent-gen')) return result;
  child.searchParams.set('agent-gen', gen);
  child.searchParams.set('agent-root', root);
  return { ...result, url: child.href };
}
