// `npm pack` runs this first: the package ships the renderer built (an install has no vite
// and no renderer sources), so build it when it is missing or older than its sources.
import { ensureRendererBuilt, rendererNeedsBuild, RENDERER_INDEX } from '../src/main/studio/renderer-build.ts';
import { copyFileSync, existsSync } from 'node:fs';
import { PACKED_SDK_TYPES, writeDeclarations } from '../src/main/init/sdk-types.ts';

await ensureRendererBuilt((line) => process.stderr.write(`${line}\n`));
if (rendererNeedsBuild() || !existsSync(RENDERER_INDEX)) {
  process.stderr.write(`prepack: the renderer is still not built at ${RENDERER_INDEX}\n`);
  process.exit(1);
}

// The package pins what it was tested with: package-lock.json ships as npm-shrinkwrap.json
// (npm honours it when the tarball is installed; postpack removes the copy).
copyFileSync('package-lock.json', 'npm-shrinkwrap.json');

// The SDK's declarations, which `agent-studio init` writes into a new project: emitted here,
// outside node_modules (an installed package cannot emit them; src/main/init/sdk-types.ts).
writeDeclarations(PACKED_SDK_TYPES);
