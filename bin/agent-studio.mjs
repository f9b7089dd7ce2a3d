#!/usr/bin/env node
// The `agent-studio` command. Sources are TypeScript and load with no build step through tsx.
import { register } from 'tsx/esm/api';

register();
globalThis[Symbol.for('agent-studio.tsx')] = true;
const { main } = await import('../src/main/cli.ts');
await main(process.argv.slice(2));
