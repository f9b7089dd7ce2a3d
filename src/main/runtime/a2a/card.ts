// The agent card (A2A 0.3, spec 2.2): built from the manifest of the loaded generation. Its
// url is the runtime's own endpoint unless PUBLIC_AGENT_URL says otherwise (D-26). Push
// notifications are served (push/, D-89).
import type { AgentCard } from '@a2a-js/sdk';
import type { Generation } from '../project/registry.ts';

export function buildAgentCard(gen: Generation, url: string): AgentCard {
  const m = gen.project.manifest;
  return {
    protocolVersion: '0.3.0',
    name: m.name,
    description: m.description,
    version: m.version,
    url,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
    defaultInputModes: m.inputModes,
    defaultOutputModes: m.outputModes,
    skills: m.skills.map((s) => ({
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
