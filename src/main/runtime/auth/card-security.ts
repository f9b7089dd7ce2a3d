// What the agent card says about authentication (A2A 0.3 AgentCard securitySchemes and
// security; docs/security.md): an API key in the X-API-Key header and/or a bearer JWT, either
// one accepted when both are configured. With no caller authentication the card says nothing.
import type { AgentCard } from '@a2a-js/sdk';
import type { CallerAuthenticator } from './credentials.ts';

export function cardSecurity(
  callers: Pick<CallerAuthenticator, 'schemes'>,
): Pick<AgentCard, 'securitySchemes' | 'security' | 'supportsAuthenticatedExtendedCard'> {
  const schemes: NonNullable<AgentCard['securitySchemes']> = {};
  if (callers.schemes.apiKey)
    schemes.apiKey = {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: 'An API key issued by the operator (also accepted as Authorization: Bearer).',
    };
  if (callers.schemes.bearerJwt) schemes.bearerJwt = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A JWT from the identity provider.' };
  const names = Object.keys(schemes);
  if (!names.length) return {};
  // Each entry of `security` is one alternative (OpenAPI 3 Security Requirement Objects).
  // D-77: with callers authenticated, agent/getAuthenticatedExtendedCard is behind their
  // credential like every method, so the card can say it is supported.
  return { securitySchemes: schemes, security: names.map((n) => ({ [n]: [] })), supportsAuthenticatedExtendedCard: true };
}
