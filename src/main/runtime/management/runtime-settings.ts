// Settings the management API changes at run time, shared by every replica (docs/management-api.md,
// "Runtime settings"; D-57): the card URL (PATCH /api/v1/card/url) and the changeable memory
// settings (PATCH /api/v1/memory/config). A change is written to the store's runtime_settings
// table (store/runtime-settings.ts) before it is applied and answered, so it survives a
// restart and reaches every replica on the store: at once through cluster control when it is
// on (the notification carries the value), and through a read of the table every
// RUNTIME_SETTINGS_REFRESH_MS in any case (a lost notification, no NATS, `--workers`).
//
// Where a value comes from, strongest first:
//   environment       PUBLIC_AGENT_URL in the process environment pins the card URL: the API
//                     refuses to change it (SETTING_PINNED) and stored values are ignored;
//   runtime_settings  a value changed through the API (stored);
//   env_file          PUBLIC_AGENT_URL in the project's .env;  manifest  memory settings of agent.json;
//   listen_address    the URL the runtime serves on (D-26).
import type { Logger } from 'pino';
import type { MemoryConfig } from '../project/registry.ts';
import type { RuntimeSettingsStore } from '../store/runtime-settings.ts';
import { ManagementError } from './envelope.ts';
import { CardUrlSchema, MemoryPatchSchema, type MemoryPatch } from './schemas.ts';

export type SettingSource = 'environment' | 'runtime_settings' | 'env_file' | 'manifest' | 'listen_address';

const CARD_URL = 'card.url';
const MEMORY_FIELDS = ['summarize', 'window_size', 'summarize_threshold'] as const;
type MemoryField = (typeof MEMORY_FIELDS)[number];
const memoryKey = (field: MemoryField) => `memory.${field}`;

export interface SharedSettingsDeps {
  store: RuntimeSettingsStore;
  agentId: string;
  replica: string;
  /** The served card; its url changes at once. */
  card: { url: string };
  /** Where PUBLIC_AGENT_URL came from (config.ts), null when it is not set. */
  cardUrlFrom: 'environment' | 'env_file' | null;
  /** The live memory configuration every invocation reads. */
  memory: MemoryConfig;
  refreshMs: number;
  log: Logger;
}

export class SharedSettings {
  /** The table as last read (key -> JSON text): a refresh applies only what changed since. */
  private seen = new Map<string, string>();
  private cardSource: SettingSource;
  private readonly memorySource = new Map<MemoryField, SettingSource>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly d: SharedSettingsDeps) {
    this.cardSource = d.cardUrlFrom ?? 'listen_address';
  }

  /** Applies what the table holds (start-up), then reads it again every refreshMs. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(
      () => void this.refresh().catch((err: Error) => this.d.log.warn({ err: err.message }, 'reading runtime settings failed; retrying')),
      this.d.refreshMs,
    ).unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** Reads the table and applies every value that changed since the last read. */
  async refresh(): Promise<void> {
    const stored = await this.d.store.read(this.d.agentId);
    const changed: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(stored)) {
      const text = JSON.stringify(value);
      if (this.seen.get(key) !== text) changed[key] = value;
      this.seen.set(key, text);
    }
    this.apply(changed);
  }

  /** The served URL when nothing else names the card's URL (D-26). */
  listening(url: string): void {
    if (this.cardSource === 'listen_address') this.d.card.url = url;
  }

  get cardUrlPinned(): boolean {
    return this.cardSource === 'environment';
  }

  cardUrlSource(): SettingSource {
    return this.cardSource;
  }

  memorySources(): Record<MemoryField, SettingSource> {
    return Object.fromEntries(MEMORY_FIELDS.map((f) => [f, this.memorySource.get(f) ?? 'manifest'])) as Record<MemoryField, SettingSource>;
  }

  /** PATCH /api/v1/card/url: stored, then served. SETTING_PINNED when the environment sets it. */
  async putCardUrl(url: string): Promise<void> {
    if (this.cardUrlPinned) {
      throw new ManagementError(
        'SETTING_PINNED',
        'PUBLIC_AGENT_URL is set in the environment of the runtime, which fixes the card URL on every replica: change it there and restart.',
        { setting: 'PUBLIC_AGENT_URL', source: 'environment' },
      );
    }
    await this.put({ [CARD_URL]: url });
  }

  /** PATCH /api/v1/memory/config (validated): stored, then applied. */
  async putMemory(values: MemoryPatch): Promise<void> {
    const entries = MEMORY_FIELDS.filter((f) => values[f] !== undefined).map((f) => [memoryKey(f), values[f]]);
    await this.put(Object.fromEntries(entries));
  }

  /** A change another replica announced (cluster control): applied at once; the table is the
   * reference at the next refresh. */
  applyAnnounced(values: Record<string, unknown>): void {
    this.apply(values);
  }

  private async put(values: Record<string, unknown>): Promise<void> {
    await this.d.store.write(this.d.agentId, values, this.d.replica);
    for (const [k, v] of Object.entries(values)) this.seen.set(k, JSON.stringify(v));
    this.apply(values);
  }

  /** Applies stored values by key; one that is not valid (written by another version) is
   * logged and skipped. */
  private apply(values: Record<string, unknown>): void {
    if (CARD_URL in values && !this.cardUrlPinned) {
      const card = CardUrlSchema.safeParse({ url: values[CARD_URL] });
      if (card.success) {
        this.d.card.url = card.data.url;
        this.cardSource = 'runtime_settings';
      } else this.d.log.warn({ key: CARD_URL }, 'a stored runtime setting is not valid; ignored');
    }
    for (const field of MEMORY_FIELDS) {
      if (!(memoryKey(field) in values)) continue;
      const parsed = MemoryPatchSchema.safeParse({ [field]: values[memoryKey(field)] });
      if (!parsed.success) {
        this.d.log.warn({ key: memoryKey(field) }, 'a stored runtime setting is not valid; ignored');
        continue;
      }
      Object.assign(this.d.memory, parsed.data);
      this.memorySource.set(field, 'runtime_settings');
    }
  }
}

/** The keys a cluster-control notification of a card URL or memory change stands for. */
export const announced = {
  cardUrl: (url: string) => ({ [CARD_URL]: url }),
  memory: (values: Record<string, unknown>) => Object.fromEntries(MEMORY_FIELDS.filter((f) => values[f] !== undefined).map((f) => [memoryKey(f), values[f]])),
};
