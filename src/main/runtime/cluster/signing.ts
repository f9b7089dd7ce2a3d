// Signed NATS messages (docs/decisions.md D-48; docs/security.md, "The message broker"):
// cluster control between an agent's replicas, and registry change events when
// REGISTRY_EVENTS_SECRET is set. The signature is an HMAC-SHA256, keyed with the shared secret,
// over the subject, a timestamp, a nonce and the body, carried in three headers beside the
// unchanged body. A receiver refuses a message that is unsigned, badly signed, older or newer
// than the window (clocks may differ a little), or whose nonce it saw within the window (a
// replay); the reason is logged, never the secret nor the signature.
import crypto from 'node:crypto';
import { headers, type MsgHdrs } from '@nats-io/nats-core';

export const SIGNATURE_HEADER = 'Agent-Studio-Signature';
export const TIMESTAMP_HEADER = 'Agent-Studio-Timestamp';
export const NONCE_HEADER = 'Agent-Studio-Nonce';

/** How far a message's timestamp may be from the receiver's clock, either way. */
export const SIGNATURE_WINDOW_MS = 60_000;

/** Nonces remembered at most (a flood of validly signed messages cannot grow memory without bound). */
const MAX_NONCES = 100_000;

export type Refusal = 'unsigned' | 'bad signature' | 'stale' | 'replayed';

function mac(secret: Buffer, subject: string, ts: string, nonce: string, body: Uint8Array): Buffer {
  const h = crypto.createHmac('sha256', secret);
  // Length-prefixed fields: no two different (subject, ts, nonce) give the same input.
  for (const field of [subject, ts, nonce]) h.update(`${Buffer.byteLength(field)}:${field}\n`);
  h.update(body);
  return h.digest();
}

export class MessageSigner {
  /** nonce -> when it stops mattering (its timestamp + the window). */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly secret: Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  /** The headers that sign `body` for `subject`. */
  sign(subject: string, body: Uint8Array | string): MsgHdrs {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    const ts = String(this.now());
    const nonce = crypto.randomBytes(16).toString('base64url');
    const h = headers();
    h.set(TIMESTAMP_HEADER, ts);
    h.set(NONCE_HEADER, nonce);
    h.set(SIGNATURE_HEADER, mac(this.secret, subject, ts, nonce, bytes).toString('base64url'));
    return h;
  }

  /** Null when the message is genuine and new, else why it is refused. */
  verify(subject: string, body: Uint8Array, h: MsgHdrs | undefined): Refusal | null {
    const ts = h?.get(TIMESTAMP_HEADER) ?? '';
    const nonce = h?.get(NONCE_HEADER) ?? '';
    const sig = h?.get(SIGNATURE_HEADER) ?? '';
    if (!ts || !nonce || !sig) return 'unsigned';
    const expected = mac(this.secret, subject, ts, nonce, body);
    const given = Buffer.from(sig, 'base64url');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return 'bad signature';
    const at = Number(ts);
    const now = this.now();
    if (!Number.isSafeInteger(at) || Math.abs(now - at) > SIGNATURE_WINDOW_MS) return 'stale';
    this.forget(now);
    if (this.seen.has(nonce)) return 'replayed';
    this.seen.set(nonce, at + SIGNATURE_WINDOW_MS);
    return null;
  }

  /** Drops nonces whose messages would be refused as stale anyway; the oldest first past the cap. */
  private forget(now: number): void {
    for (const [nonce, until] of this.seen) {
      if (until >= now && this.seen.size < MAX_NONCES) break;
      this.seen.delete(nonce);
    }
  }
}
