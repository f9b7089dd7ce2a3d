#!/usr/bin/env node
// Part of `npm run lint`: no non-test source file under src/ longer than 350 lines, so a
// file keeps to one job (docs/architecture.md, "Layout"). Tests and test support are exempt.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const LIMIT = 350;
const SOURCE = /\.(ts|tsx|mts|mjs|js|css)$/;
const TEST = /(\.test\.|test-support\.|\.d\.ts$|\.d\.mts$)/;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (SOURCE.test(entry.name) && !TEST.test(entry.name)) yield path;
  }
}

const root = new URL('..', import.meta.url).pathname;
const over = [];
for (const path of files(join(root, 'src'))) {
  const lines = readFileSync(path, 'utf8').split('\n').length - 1;
  if (lines > LIMIT) over.push(`${relative(root, path)}: ${lines} lines`);
}
if (over.length > 0) {
  console.error(`Source files over ${LIMIT} lines (split each along its seams):\n  ${over.join('\n  ')}`);
  process.exit(1);
}
