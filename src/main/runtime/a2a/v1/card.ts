// The agent card for A2A 1.0 clients (D-88), made from the served 0.3 card (card.ts) at each
// request, so a changed url (PATCH /api/v1/card/url) shows in both. Its supportedInterfaces
// list A2A 1.0 over JSON-RPC (the card's url), 1.0 over HTTP+JSON (`<url>/v1`) and 0.3 over
// JSON-RPC (the card's url), in that order of preference.
import type { AgentCard as Card03 } from '@a2a-js/sdk';
import { AgentCard } from 'a2a-sdk-1';
import { A2A_REST_BASE } from '../../../../shared/runtime-contract.ts';

export interface InterfaceJson {
  url: string;
  protocolBinding: 'JSONRPC' | 'HTTP+JSON';
  protocolVersion: '1.0' | '0.3';
}

export function supportedInterfaces(url: string): InterfaceJson[] {
  const rest = url.replace(/\/+$/, '') + A2A_REST_BASE;
  return [
    { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: rest, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ];
}

/** The 0.3 card as 0.3 clients get it, with the interfaces a 1.0 client looks for. */
export function card03WithInterfaces(card: Card03): Card03 & { supportedInterfaces: InterfaceJson[] } {
  return { ...card, supportedInterfaces: supportedInterfaces(card.url) };
}

type Scheme03 = NonNullable<Card03['securitySchemes']>[string];

/** 0.3's OpenAPI-style scheme as 1.0's (the two the runtime announces: auth/card-security.ts). */
function schemeToV1(s: Scheme03): Record<string, unknown> | null {
  const description = s.description ? { description: s.description } : {};
  if (s.type === 'apiKey') return { apiKeySecurityScheme: { location: s.in, name: s.name, ...description } };
  if (s.type === 'http') return { httpAuthSecurityScheme: { scheme: s.scheme, ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}), ...description } };
  return null;
}

/** The 1.0 card's JSON (ProtoJSON, as 1.0 clients and the 1.0 JSON schema read it). */
export function cardJsonV1(card: Card03): Record<string, unknown> {
  const schemes: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(card.securitySchemes ?? {})) {
    const v1 = schemeToV1(s);
    if (v1) schemes[name] = v1;
  }
  const requirements = (card.security ?? []).map((alt) => ({ schemes: Object.fromEntries(Object.entries(alt).map(([n, scopes]) => [n, { list: scopes }])) }));
  return {
    name: card.name,
    description: card.description,
    supportedInterfaces: supportedInterfaces(card.url),
    version: card.version,
    capabilities: {
      streaming: card.capabilities.streaming ?? false,
      pushNotifications: card.capabilities.pushNotifications ?? false,
      ...(card.supportsAuthenticatedExtendedCard ? { extendedAgentCard: true } : {}),
    },
    ...(Object.keys(schemes).length ? { securitySchemes: schemes, securityRequirements: requirements } : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: s.tags,
      ...(s.examples ? { examples: s.examples } : {}),
      ...(s.inputModes ? { inputModes: s.inputModes } : {}),
      ...(s.outputModes ? { outputModes: s.outputModes } : {}),
    })),
  };
}

/** The 1.0 card as the 1.x SDK's handler reads it. */
export function cardV1(card: Card03): AgentCard {
  return AgentCard.fromJSON(cardJsonV1(card));
}
