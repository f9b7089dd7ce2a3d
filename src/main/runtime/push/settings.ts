// The push-notification settings (docs/deployment.md, "Settings"; docs/a2a-conformance.md,
// "Push notifications"). Each bad value is a SettingsError naming the setting.
import { SettingsError } from '../settings-error.ts';

export interface PushSettings {
  /** PUSH_ALLOW_PRIVATE (off): callbacks may target loopback, link-local and private addresses (address.ts). */
  allowPrivate: boolean;
  /** PUSH_MAX_ATTEMPTS (5): deliveries tried per notification before it is given up. */
  maxAttempts: number;
  /** PUSH_RETRY_BASE_MS (1000): the wait after the first failed attempt; it doubles after each. */
  retryBaseMs: number;
  /** PUSH_RETRY_MAX_MS (60000): the longest wait between two attempts. */
  retryMaxMs: number;
  /** PUSH_TIMEOUT_MS (5000): one attempt's time limit (connection, answer). A claim lasts twice this. */
  timeoutMs: number;
  /** PUSH_POLL_MS (1000): how often each replica looks for notifications due (its own are sent at once). */
  pollMs: number;
}

function positive(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new SettingsError(`${name} must be a positive integer, got '${raw}'`);
  return n;
}

export function pushSettings(env: Record<string, string | undefined>): PushSettings {
  const rawAllow = env.PUSH_ALLOW_PRIVATE?.trim() ?? '';
  if (rawAllow && !/^(1|true|yes|on|0|false|no|off)$/i.test(rawAllow)) throw new SettingsError(`PUSH_ALLOW_PRIVATE must be 1 or 0, got '${rawAllow}'`);
  const s: PushSettings = {
    allowPrivate: /^(1|true|yes|on)$/i.test(rawAllow),
    maxAttempts: positive(env, 'PUSH_MAX_ATTEMPTS', 5),
    retryBaseMs: positive(env, 'PUSH_RETRY_BASE_MS', 1_000),
    retryMaxMs: positive(env, 'PUSH_RETRY_MAX_MS', 60_000),
    timeoutMs: positive(env, 'PUSH_TIMEOUT_MS', 5_000),
    pollMs: positive(env, 'PUSH_POLL_MS', 1_000),
  };
  if (s.maxAttempts > 100) throw new SettingsError(`PUSH_MAX_ATTEMPTS must be at most 100, got '${s.maxAttempts}'`);
  return s;
}

/** The wait before attempt `attempts + 1`, after `attempts` failed ones. */
export function retryDelayMs(s: Pick<PushSettings, 'retryBaseMs' | 'retryMaxMs'>, attempts: number): number {
  return Math.min(s.retryMaxMs, s.retryBaseMs * 2 ** Math.max(0, Math.min(30, attempts - 1)));
}
