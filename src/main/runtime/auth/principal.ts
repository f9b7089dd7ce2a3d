// auth/ owns who is calling the runtime (docs/security.md): the credential schemes the agent
// card announces, the principal each request resolves to, and how that principal reaches
// the A2A SDK's request handler and executor (ServerCallContext.user).
//
// This file is the seam other folders use: a2a/ and store/ read a request's principal here
// and never look at credentials themselves.
import type { Request, Response } from 'express';
import type { ServerCallContext, User } from '@a2a-js/sdk/server';

/** Who a request acts as. A thread (contextId) belongs to the principal that started it. */
export interface Principal {
  /** The user a thread belongs to: an API key's name, or a JWT's `sub`. Empty for the
   * anonymous principal (no caller authentication configured). */
  readonly name: string;
  readonly scheme: 'apiKey' | 'bearer' | 'none';
  /** A trusted host (a gateway or an orchestrating agent acting for many users) may pass
   * `metadata.userId` to act for a user and `metadata.history` (spec 4.1 rule 4). */
  readonly trusted: boolean;
}

/** Every caller when no caller authentication is configured (loopback use, the studio's
 * child): one principal, trusted, as the runtime behaved before authentication existed.
 * Threads it starts belong to the empty name, which no authenticated principal has. */
export const ANONYMOUS: Principal = Object.freeze({ name: '', scheme: 'none', trusted: true });

/** The SDK's User carrying our principal through ServerCallContext. */
export class PrincipalUser implements User {
  constructor(readonly principal: Principal) {}
  get isAuthenticated(): boolean {
    return this.principal.scheme !== 'none';
  }
  get userName(): string {
    return this.principal.name;
  }

  /** The same caller acting as another principal (a trusted caller naming its user). */
  withPrincipal(principal: Principal): PrincipalUser {
    return new PrincipalUser(principal);
  }
}

const LOCALS_KEY = 'principal';

/** Set by the authentication middleware once a request's credentials were verified. */
export function setRequestPrincipal(res: Response, principal: Principal): void {
  (res.locals as Record<string, unknown>)[LOCALS_KEY] = principal;
}

/** The principal of an HTTP request: ANONYMOUS when no authentication middleware ran. */
export function requestPrincipal(req: Request): Principal {
  const p = (req.res?.locals as Record<string, unknown> | undefined)?.[LOCALS_KEY];
  return (p as Principal | undefined) ?? ANONYMOUS;
}

/** The SDK's userBuilder for jsonRpcHandler: hands the request's principal to the handler. */
export function principalUserBuilder(req: Request): Promise<User> {
  return Promise.resolve(new PrincipalUser(requestPrincipal(req)));
}

/** The principal of an SDK call. Calls the runtime makes itself (a cancel relayed from
 * another replica) carry no context and act as ANONYMOUS: they never come from a caller. */
export function principalOf(context: ServerCallContext | undefined): Principal {
  const user = context?.user;
  return user instanceof PrincipalUser ? user.principal : ANONYMOUS;
}
