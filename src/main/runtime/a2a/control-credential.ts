// Whether an A2A request comes from the studio that supervises this runtime: it carries the
// control token (RUNTIME_CONTROL_TOKEN) in CONTROL_CREDENTIAL_HEADER. Only such a request may
// use the studio's reserved debug metadata (docs/security.md, "Reserved metadata keys").
// A runtime without a control token (deployed) honours it from nobody.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { CONTROL_CREDENTIAL_HEADER } from '../../../shared/breakpoints.ts';

export function hasControlCredential(headers: IncomingHttpHeaders, controlToken: string | null | undefined): boolean {
  if (!controlToken) return false;
  const sent = headers[CONTROL_CREDENTIAL_HEADER];
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(controlToken);
  return a.length === b.length && timingSafeEqual(a, b);
}
