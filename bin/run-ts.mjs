#!/usr/bin/env node
// Runs a TypeScript file (benchmarks, scripts) with no build step: `node bin/run-ts.mjs FILE [args]`.
import { register } from 'tsx/esm/api';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

register();
globalThis[Symbol.for('agent-studio.tsx')] = true;
const [file, ...rest] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bin/run-ts.mjs FILE.ts [args]\n');
  process.exit(2);
}
process.argv = [process.argv[0], file, ...rest];
await import(pathToFileURL(path.resolve(file)).href);
