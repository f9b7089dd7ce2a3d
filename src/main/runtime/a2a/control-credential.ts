// Whether an A2A request comes from the studio that supervises this runtime: it carries the
// control token (RUNTIME_CONTROL_TOKEN) in CONTROL_CREDENTIAL_HEADER. Only such a request may
// use the studio's reserved debug metadata (docs/security.md, "Reserved metadata keys").
// A runtime without a control token (deployed) honours it from nobody.
import type { IncomingHttpHeaders } from 'node:http';
import { sameToken } from '../auth/api-keys.ts';
import { CONTROL_CREDENTIAL_HEADER } from '../../../shared/breakpoints.ts';

export function hasControlCredential(headers: IncomingHttpHeaders, controlToken: string | null | undefined): boolean {
  if (!controlToken) return false;
  const sent = headers[CONTROL_CREDENTIAL_HEADER];
  return typeof sent === 'string' && sameToken(sent, controlToken);
}
