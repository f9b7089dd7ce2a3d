// GET/PATCH /api/v1/memory/config (spec 2.3, 4.2 rule 2). Changes take effect at the next
// invocation: the graph reads the live values through ctx.memory.
import type { RuntimeContext } from '../server.ts';
import { ManagementError } from './envelope.ts';
import { redactDsn } from '../store/postgres/dsn.ts';

const IMMUTABLE = ['enabled', 'backend', 'postgres_dsn'] as const;
const MUTABLE = ['summarize', 'window_size', 'summarize_threshold'] as const;

export function requireMemory(ctx: RuntimeContext): void {
  if (!ctx.memory.enabled) throw new ManagementError('MEMORY_DISABLED', 'Memory is disabled for this agent (manifest memory.enabled or MEMORY_ENABLED=false).');
}

export class MemoryService {
  constructor(private readonly ctx: RuntimeContext) {}

  config() {
    requireMemory(this.ctx);
    const m = this.ctx.memory;
    return {
      enabled: m.enabled,
      backend: m.backend,
      summarize: m.summarize,
      window_size: m.window_size,
      summarize_threshold: m.summarize_threshold,
      postgres_dsn: redactDsn(this.ctx.settings.env.POSTGRES_DSN ?? null),
    };
  }

  patch(body: Record<string, unknown>) {
    requireMemory(this.ctx);
    const immutable = IMMUTABLE.filter((k) => k in body);
    if (immutable.length) {
      throw new ManagementError('IMMUTABLE_FIELD', `${immutable.join(', ')} cannot change at runtime: change the configuration and restart.`, { fields: immutable });
    }
    const unknown = Object.keys(body).filter((k) => !(MUTABLE as readonly string[]).includes(k));
    if (unknown.length) throw new ManagementError('INVALID_PARAM', `Unknown field(s): ${unknown.join(', ')}. Changeable: ${MUTABLE.join(', ')}.`, { fields: unknown });
    if (Object.keys(body).length === 0) throw new ManagementError('INVALID_PARAM', `Give at least one of ${MUTABLE.join(', ')}.`);
    if ('summarize' in body && typeof body.summarize !== 'boolean') throw new ManagementError('INVALID_PARAM', "'summarize' must be a boolean.", { field: 'summarize' });
    for (const k of ['window_size', 'summarize_threshold'] as const) {
      if (k in body && !(Number.isInteger(body[k]) && (body[k] as number) > 0)) {
        throw new ManagementError('INVALID_PARAM', `'${k}' must be a positive integer.`, { field: k });
      }
    }
    // Validated as a whole before anything changes.
    Object.assign(this.ctx.memory, body);
    return this.config();
  }
}
