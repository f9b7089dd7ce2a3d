// Node module-resolution hook (registered once with module.register).
//
// 1. Generations. A project module imported as `file.ts?agent-gen=N&agent-root=DIR` passes
//    the same query on to every file it imports inside DIR, so each registry generation gets
//    fresh copies of the project's own files while packages stay single, shared instances: a
//    reload re-reads edited sources without loading the dependency tree again.
// 2. One framework. The SDK (`agent-studio/sdk`), LangGraph and LangChain core imported from
//    anywhere outside the runtime's own install (the project, or a package the project
//    installed) resolve to the runtime's copies, so the graph, the SDK's errors and the
//    runtime's checkpointer share one set of classes (docs/project-format.md, "Dependencies").
let runtimeParent = null;
let shared = new Set();
let runtimeRoot = null;

export function initialize(data) {
  if (!data) return;
  runtimeParent = data.runtimeParent; // file URL of the runtime's package.json
  runtimeRoot = data.runtimeRoot; // file URL of the runtime's folder, ending in /
  shared = new Set(data.shared);
}

function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.includes(':')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  const pkg = runtimeParent && parent?.startsWith('file:') ? packageOf(specifier) : null;
  if (pkg && shared.has(pkg) && !isRuntimeFile(parent)) {
    try {
      return await nextResolve(specifier, { ...context, parentURL: runtimeParent });
    } catch {
      // A subpath the runtime's copy does not export: the project's own copy answers.
    }
  }
  const result = await nextResolve(specifier, context);
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

/** A file of the runtime itself or of its dependencies; project files carry `agent-gen`. */
function isRuntimeFile(url) {
  return url.startsWith(runtimeRoot) && !url.includes('agent-gen=');
}
