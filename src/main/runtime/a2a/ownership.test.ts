// Who a request acts as (docs/security.md, "Whose conversation is whose"): only a trusted,
// authenticated principal may name the user it acts for in metadata.userId.
import { describe, expect, it } from 'vitest';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { ANONYMOUS, principalOf, PrincipalUser, type Principal } from '../auth/principal.ts';
import { actingContext, actingPrincipal } from './ownership.ts';

const bob: Principal = { name: 'bob', scheme: 'apiKey', trusted: false };
const gateway: Principal = { name: 'gateway', scheme: 'bearer', trusted: true };

describe('actingPrincipal', () => {
  it('lets a trusted principal act for the user named in metadata.userId', () => {
    expect(actingPrincipal(gateway, { userId: 'alice' })).toEqual({ ...gateway, name: 'alice' });
  });
  it("never lets an untrusted principal's metadata.userId change who it is", () => {
    expect(actingPrincipal(bob, { userId: 'alice' })).toBe(bob);
  });
  it('ignores an empty, non-string or absent userId, and metadata that is not an object', () => {
    for (const metadata of [{ userId: '' }, { userId: 42 }, {}, undefined, ['alice'], 'alice']) expect(actingPrincipal(gateway, metadata)).toBe(gateway);
  });
  it('leaves the anonymous principal (no caller authentication) as it is', () => {
    expect(actingPrincipal(ANONYMOUS, { userId: 'alice' })).toBe(ANONYMOUS);
  });
});

describe('actingContext', () => {
  it('hands on a context carrying the acting principal, and keeps the requested extensions', () => {
    const context = new ServerCallContext(['urn:x'], new PrincipalUser(gateway));
    const acting = actingContext(context, { userId: 'alice' });
    expect(principalOf(acting)).toEqual({ ...gateway, name: 'alice' });
    expect(acting?.requestedExtensions).toEqual(['urn:x']);
    expect(actingContext(context, {})).toBe(context);
    expect(actingContext(undefined, { userId: 'alice' })).toBeUndefined();
  });
});
