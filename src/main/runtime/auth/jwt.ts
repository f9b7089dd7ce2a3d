// Bearer JWTs from an identity provider (docs/security.md, "Deployed runtime: authentication";
// D-46), verified with jose: the signature with the configured keys (a remote JWKS, one public
// key, or a local JWK set), `alg` against A2A_JWT_ALGORITHMS (never `none`, never HS*), `iss`,
// `aud`, `exp` and `nbf` with A2A_JWT_CLOCK_SKEW_SECONDS of tolerance, and a `sub`, which is the
// principal's name.
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey, type KeyObject } from 'jose';
import type { JwtSettings } from './settings.ts';

/** Three dot-separated base64url parts (an unsigned token's third part is empty). */
export const looksLikeJwt = (token: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);

/** Why a token was refused, for the log (never sent to the caller, never holding the token). */
export class JwtRefusal extends Error {
  override readonly name = 'JwtRefusal';
}

export class JwtVerifier {
  private readonly key: KeyObject | JWTVerifyGetKey;

  constructor(private readonly settings: JwtSettings) {
    const k = settings.keys;
    // A remote JWKS is fetched on first use and again when a token names an unknown `kid`
    // (at most every 30 s), so the provider's key rotation needs no restart.
    this.key = k.kind === 'jwks-url' ? createRemoteJWKSet(k.url, { timeoutDuration: 5000 }) : k.kind === 'jwk-set' ? createLocalJWKSet(k.jwks as never) : k.key;
  }

  /** The token's `sub`, or a JwtRefusal saying why not. */
  async subject(token: string): Promise<string> {
    try {
      const { payload } = await jwtVerify(token, this.key as KeyObject, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: this.settings.algorithms,
        clockTolerance: this.settings.clockSkewSeconds,
        requiredClaims: ['sub', 'exp'],
      });
      if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.length > 256) throw new JwtRefusal('the `sub` claim is not a name');
      return payload.sub;
    } catch (err) {
      if (err instanceof JwtRefusal) throw err;
      if (err instanceof errors.JOSEError) throw new JwtRefusal(`${err.code}: ${err.message}`);
      throw new JwtRefusal(`verification failed: ${(err as Error).message}`);
    }
  }
}
