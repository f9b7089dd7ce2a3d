// zod without code generation: the renderer's CSP has no 'unsafe-eval' (src/renderer/index.html,
// docs/security.md), and zod's probe for it would be reported as a CSP violation. Imported
// first by main.tsx: zod decides when each schema is built, and the shared schemas are built
// as their modules load.
import { z } from 'zod';

z.config({ jitless: true });
