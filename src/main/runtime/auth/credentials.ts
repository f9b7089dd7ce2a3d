// Reading a request's credential (docs/security.md, "Deployed runtime: authentication"):
// `Authorization: Bearer <token>` or `X-API-Key: <key>`, and which principal a caller's
// credential stands for. Nothing here answers HTTP; the middleware (middleware.ts) does.
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { ANONYMOUS, type Principal } from './principal.ts';
import { callerAuthConfigured, type AuthSettings } from './settings.ts';
import { sha256, type KeyRing } from './api-keys.ts';
import { JwtRefusal, JwtVerifier, looksLikeJwt } from './jwt.ts';

/** What a request carries: nothing, a bearer token, an X-API-Key value, or something unusable. */
export type Presented = { kind: 'none' } | { kind: 'bearer' | 'apiKey'; token: string } | { kind: 'malformed'; reason: string };

export function presentedCredential(req: IncomingMessage): Presented {
  const authorization = req.headers.authorization;
  const apiKey = req.headers['x-api-key'];
  if (authorization !== undefined && apiKey !== undefined) return { kind: 'malformed', reason: 'both Authorization and X-API-Key were sent' };
  if (authorization !== undefined) {
    const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(authorization);
    return m ? { kind: 'bearer', token: m[1]! } : { kind: 'malformed', reason: 'Authorization is not `Bearer <token>`' };
  }
  if (typeof apiKey === 'string') return apiKey.trim() ? { kind: 'apiKey', token: apiKey.trim() } : { kind: 'malformed', reason: 'X-API-Key is empty' };
  if (apiKey !== undefined) return { kind: 'malformed', reason: 'X-API-Key was sent twice' };
  return { kind: 'none' };
}

/** The outcome of checking a caller: its principal, or why it has none (for the log only). */
export type CallerVerdict = { ok: true; principal: Principal } | { ok: false; missing: boolean; reason: string };

/** Who may call POST /: API keys (A2A_API_KEYS) and bearer JWTs (A2A_JWT_*). */
export class CallerAuthenticator {
  private readonly keys: KeyRing;
  private readonly jwt: JwtVerifier | null;
  private readonly trusted: ReadonlySet<string>;
  readonly configured: boolean;
  readonly schemes: { apiKey: boolean; bearerJwt: boolean };

  private readonly controlToken: Buffer | null;

  /** `controlToken`: RUNTIME_CONTROL_TOKEN, with which the studio's Playground calls its child.
   * It acts as ANONYMOUS, the principal every caller was before authentication was configured. */
  constructor(settings: AuthSettings, controlToken: string | null = null) {
    this.controlToken = controlToken ? sha256(controlToken) : null;
    this.keys = settings.callerKeys;
    this.jwt = settings.jwt ? new JwtVerifier(settings.jwt) : null;
    this.trusted = settings.trusted;
    this.configured = callerAuthConfigured(settings);
    this.schemes = { apiKey: this.keys.size > 0, bearerJwt: this.jwt !== null };
  }

  async verify(presented: Presented): Promise<CallerVerdict> {
    if (presented.kind === 'none') return { ok: false, missing: true, reason: 'no credential' };
    if (presented.kind === 'malformed') return { ok: false, missing: false, reason: presented.reason };
    if (presented.kind === 'bearer' && this.controlToken && timingSafeEqual(sha256(presented.token), this.controlToken))
      return { ok: true, principal: ANONYMOUS };
    // A bearer token shaped like a JWT is a JWT when JWTs are configured, else a key.
    if (presented.kind === 'bearer' && this.jwt && looksLikeJwt(presented.token)) {
      try {
        return { ok: true, principal: this.principal(await this.jwt.subject(presented.token), 'bearer') };
      } catch (err) {
        return { ok: false, missing: false, reason: err instanceof JwtRefusal ? `JWT refused (${err.message})` : 'JWT refused' };
      }
    }
    const name = this.keys.nameOf(presented.token);
    if (name === null) return { ok: false, missing: false, reason: `unknown API key (${presented.kind === 'bearer' ? 'Authorization: Bearer' : 'X-API-Key'})` };
    return { ok: true, principal: this.principal(name, 'apiKey') };
  }

  private principal(name: string, scheme: 'apiKey' | 'bearer'): Principal {
    return Object.freeze({ name, scheme, trusted: this.trusted.has(name) });
  }
}
