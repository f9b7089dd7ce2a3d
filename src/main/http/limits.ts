// Request size limits of both servers (docs/security.md). The studio forwards a run's inline
// files to its runtime as base64 unchanged, inside a small JSON-RPC envelope, so its own body
// limit stays below the runtime's: whatever the Playground accepts, the runtime accepts too.

/** POST / (JSON-RPC) on the runtime. */
export const RUNTIME_RPC_BODY_LIMIT = '25mb';
/** Playground API request bodies (run creation carries inline files as base64). */
export const PLAYGROUND_BODY_LIMIT = '24mb';
/** Management API request bodies: small JSON objects. */
export const MANAGEMENT_BODY_LIMIT = '1mb';
/** The runtime's debugger edits (fork, the edit of a paused thread): a channel of the state can
 * be as large as a run's input put it there, so what the Playground accepts, the runtime does. */
export const DEBUG_EDIT_BODY_LIMIT = '25mb';
/** POST /bundles/import: a whole bundle, files as base64 (about 1.5 GB of files). The body is
 * streamed into a staging area, never held whole (D-96), so the limit is about disk and time. */
export const BUNDLE_IMPORT_BODY_LIMIT = '2gb';
export const BUNDLE_IMPORT_BODY_LIMIT_BYTES = 2 * 1024 * 1024 * 1024;
