// Shared by the bench baseline servers (echo-server.ts, peer-server.ts): an @a2a-js/sdk
// server as a user would hand-wire it (DefaultRequestHandler, in-memory task store, express),
// on a free loopback port, printing its URL in the ready line bench/load.ts start() reads.
import express from 'express';
import type { AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

export function serveBaseline(label: string, card: AgentCard, executor: AgentExecutor): void {
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const server = app.listen(0, '127.0.0.1', () => {
    const addr = server.address() as { port: number };
    process.stdout.write(`${label} server ready at http://127.0.0.1:${addr.port}/\n`);
  });
  // An exit on SIGTERM (not the default kill), so `node --cpu-prof` writes its profile.
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}
