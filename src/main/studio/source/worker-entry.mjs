// Worker bootstrap: TypeScript through tsx (as the `agent-studio` bin does), then the worker.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
