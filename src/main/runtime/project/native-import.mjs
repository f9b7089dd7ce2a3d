// Node's own dynamic import, in a plain module that test runners load natively (see the
// vitest configs' server.deps.external), so project modules always go through Node's
// loader and the generation hook.
export function nativeImport(url) {
  return import(url);
}
