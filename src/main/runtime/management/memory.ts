// GET/PATCH /api/v1/memory/config (spec 2.3, 4.2 rule 2). Changes take effect at the next
// invocation: the graph reads the live values of the memory configuration. A change is stored
// in the shared runtime settings first (runtime-settings.ts): every replica applies it and a
// restart keeps it; `sources` says where each changeable value comes from.
import { redactDsn } from '../store/postgres/dsn.ts';
import type { MemoryConfig } from '../project/registry.ts';
import { ManagementError } from './envelope.ts';
import { MEMORY_IMMUTABLE, MemoryPatchSchema, parseParams } from './schemas.ts';
import type { SharedSettings } from './runtime-settings.ts';

export function requireMemory(memory: Pick<MemoryConfig, 'enabled'>): void {
  if (!memory.enabled) throw new ManagementError('MEMORY_DISABLED', 'Memory is disabled for this agent (manifest memory.enabled or MEMORY_ENABLED=false).');
}

export interface MemoryServiceDeps {
  /** The live configuration every invocation reads. */
  memory: MemoryConfig;
  /** POSTGRES_DSN as configured (shown redacted). */
  postgresDsn: string | null;
  shared: Pick<SharedSettings, 'putMemory' | 'memorySources'>;
}

export class MemoryService {
  constructor(private readonly deps: MemoryServiceDeps) {}

  config() {
    requireMemory(this.deps.memory);
    const m = this.deps.memory;
    return {
      enabled: m.enabled,
      backend: m.backend,
      summarize: m.summarize,
      window_size: m.window_size,
      summarize_threshold: m.summarize_threshold,
      postgres_dsn: redactDsn(this.deps.postgresDsn),
      sources: this.deps.shared.memorySources(),
    };
  }

  /** Refuses a change of what only a restart changes (IMMUTABLE_FIELD), before the body's
   * other fields are looked at. */
  checkMutable(body: Record<string, unknown>): void {
    requireMemory(this.deps.memory);
    const immutable = MEMORY_IMMUTABLE.filter((k) => k in body);
    if (immutable.length) {
      throw new ManagementError('IMMUTABLE_FIELD', `${immutable.join(', ')} cannot change at runtime: change the configuration and restart.`, {
        fields: immutable,
      });
    }
  }

  /** PATCH /api/v1/memory/config: validated as a whole, stored, then applied. */
  async update(body: Record<string, unknown>) {
    this.checkMutable(body);
    const values = parseParams(MemoryPatchSchema, body);
    await this.deps.shared.putMemory(values);
    return this.config();
  }
}
