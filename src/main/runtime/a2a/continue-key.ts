// The studio's reserved "continue from the checkpoint" metadata key (src/shared/thread-state.ts,
// docs/security.md "The studio's reserved metadata"): a fork's run continues its thread with no
// new input. Only the studio that started this runtime may ask for it: the request must carry
// CONTROL_CREDENTIAL_HEADER with its control token (control-credential.ts). Anyone else is refused with a JSON-RPC error
// naming the key; the key never reaches the SDK, the task store or the thread.
import type { IncomingHttpHeaders } from 'node:http';
import { CONTINUE_METADATA_KEY } from '../../../shared/thread-state.ts';
import { hasControlCredential } from './control-credential.ts';

export type ContinueKey = { kind: 'absent' } | { kind: 'continue' } | { kind: 'refused'; message: string; data: Record<string, unknown> };

/** Takes the key out of both metadata objects and says whether the request may use it. */
export function takeContinueKey(
  req: { headers: IncomingHttpHeaders },
  paramsMeta: Record<string, unknown>,
  messageMeta: Record<string, unknown> | undefined,
  controlToken: string | null | undefined,
): ContinueKey {
  const asked = paramsMeta[CONTINUE_METADATA_KEY] ?? messageMeta?.[CONTINUE_METADATA_KEY];
  delete paramsMeta[CONTINUE_METADATA_KEY];
  if (messageMeta) delete messageMeta[CONTINUE_METADATA_KEY];
  if (asked === undefined) return { kind: 'absent' };
  if (hasControlCredential(req.headers, controlToken)) return { kind: 'continue' };
  return {
    kind: 'refused',
    message: `Invalid params: metadata['${CONTINUE_METADATA_KEY}'] is reserved to the studio that started this runtime`,
    data: { field: `params.metadata.${CONTINUE_METADATA_KEY}` },
  };
}
