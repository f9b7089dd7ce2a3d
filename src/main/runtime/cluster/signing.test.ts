// Signed NATS messages (signing.ts, D-48): only a message signed with the shared secret, for
// its subject, within the window and never seen before is accepted.
import { describe, expect, it } from 'vitest';
import { MessageSigner, NONCE_HEADER, SIGNATURE_WINDOW_MS, TIMESTAMP_HEADER } from './signing.ts';

const secret = Buffer.from('k'.repeat(44));
const body = Buffer.from('{"origin":"a","msg":{"op":"reload"}}');

describe('signed NATS messages', () => {
  it('accepts a genuine message once, and refuses a replay of it', () => {
    const h = new MessageSigner(secret).sign('p.agent', body);
    const receiver = new MessageSigner(secret);
    expect(receiver.verify('p.agent', body, h)).toBeNull();
    expect(receiver.verify('p.agent', body, h)).toBe('replayed');
  });

  it('refuses unsigned, another secret, another subject, a changed body', () => {
    const h = new MessageSigner(secret).sign('p.agent', body);
    const receiver = new MessageSigner(secret);
    expect(receiver.verify('p.agent', body, undefined)).toBe('unsigned');
    expect(receiver.verify('p.agent', body, new MessageSigner(Buffer.from('o'.repeat(44))).sign('p.agent', body))).toBe('bad signature');
    expect(receiver.verify('p.other', body, h)).toBe('bad signature');
    expect(receiver.verify('p.agent', Buffer.from('{"origin":"a","msg":{"op":"cancel"}}'), h)).toBe('bad signature');
    h.set(TIMESTAMP_HEADER, String(Number(h.get(TIMESTAMP_HEADER)) + 1));
    expect(receiver.verify('p.agent', body, h)).toBe('bad signature');
  });

  it('refuses a message from outside the window either way, and forgets nonces once their window is past', () => {
    let now = 1_000_000;
    const sender = new MessageSigner(secret, () => now);
    const receiver = new MessageSigner(secret, () => now + SIGNATURE_WINDOW_MS + 1);
    expect(receiver.verify('s', body, sender.sign('s', body))).toBe('stale');
    const early = new MessageSigner(secret, () => now - SIGNATURE_WINDOW_MS - 1);
    expect(early.verify('s', body, sender.sign('s', body))).toBe('stale');
    const h = sender.sign('s', body);
    const same = new MessageSigner(secret, () => now);
    expect(same.verify('s', body, h)).toBeNull();
    now += 2 * SIGNATURE_WINDOW_MS;
    // The same nonce, much later: refused as stale (not accepted again).
    expect(same.verify('s', body, h)).toBe('stale');
    expect(h.get(NONCE_HEADER)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
