// A runtime reachable from other machines does not start open (docs/deployment.md, docs/security.md):
// on a non-loopback address it needs a caller credential (A2A_API_KEYS, A2A_API_KEYS_FILE or
// A2A_JWT_*) for POST / and an operator credential (MANAGEMENT_API_KEYS, MANAGEMENT_API_KEYS_FILE
// or RUNTIME_CONTROL_TOKEN) for the management API, unless the operator says `--insecure` (or
// RUNTIME_INSECURE=true). Loopback binds need nothing, as before.
import { isLoopbackAddress } from '../../http/loopback.ts';
import { callerAuthConfigured, type AuthSettings } from './settings.ts';

export interface BindCheck {
  host: string;
  auth: AuthSettings;
  controlToken: string | null;
  /** --insecure on the command line. */
  insecureFlag: boolean;
}

/** Null when the runtime may start; else why not and how to fix it (one line). */
export function insecureBindRefusal(c: BindCheck): string | null {
  if (isLoopbackAddress(c.host) || c.insecureFlag || c.auth.insecure) return null;
  const missing: string[] = [];
  if (!callerAuthConfigured(c.auth))
    missing.push('no caller credential for POST / (set A2A_API_KEYS, A2A_API_KEYS_FILE or A2A_JWT_JWKS_URL/A2A_JWT_PUBLIC_KEY)');
  if (c.auth.operatorKeys.size === 0 && !c.controlToken)
    missing.push('no operator credential for /api/v1 (set MANAGEMENT_API_KEYS or MANAGEMENT_API_KEYS_FILE)');
  if (!missing.length) return null;
  return (
    `refusing to listen on ${c.host} (reachable from other machines) with ${missing.join(' and ')}; ` +
    'make keys with `agent-studio runtime keys new NAME`, or pass --insecure (RUNTIME_INSECURE=true) to serve without authentication (docs/deployment.md)'
  );
}

/** Whether the runtime serves a non-loopback address without authentication (logged at start). */
export function servesInsecurely(c: BindCheck): boolean {
  if (isLoopbackAddress(c.host)) return false;
  return (c.insecureFlag || c.auth.insecure) && (!callerAuthConfigured(c.auth) || (c.auth.operatorKeys.size === 0 && !c.controlToken));
}
