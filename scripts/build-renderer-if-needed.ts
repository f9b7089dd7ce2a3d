// Builds the renderer only when out/renderer is missing or older than its sources.
import { ensureRendererBuilt } from '../src/main/studio/renderer-build.ts';

await ensureRendererBuilt((line) => console.log(line));
