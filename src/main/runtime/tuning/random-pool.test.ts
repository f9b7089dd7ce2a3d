// The pooled getRandomValues (random-pool.ts) keeps the Web Crypto contract: the same array
// back, filled with fresh bytes every call, every integer typed array, the original errors.
import { afterEach, describe, expect, it } from 'vitest';
import { installRandomPool } from './random-pool.ts';

let uninstall: (() => void) | undefined;
afterEach(() => {
  uninstall?.();
  uninstall = undefined;
});

describe('installRandomPool', () => {
  it('fills the array it is given and returns it, with bytes never handed out twice', () => {
    const original = crypto.getRandomValues;
    uninstall = installRandomPool();
    expect(crypto.getRandomValues).not.toBe(original);
    const seen = new Set<string>();
    // 2,000 draws of 16 bytes cross the 4 KiB pool several times.
    for (let i = 0; i < 2000; i++) {
      const a = new Uint8Array(16);
      expect(crypto.getRandomValues(a)).toBe(a);
      seen.add(Buffer.from(a).toString('hex'));
    }
    expect(seen.size).toBe(2000);
    // Bytes look random: every value of a byte appears over 32,000 of them.
    const counts = new Array(256).fill(0);
    for (const hex of seen) for (const b of Buffer.from(hex, 'hex')) counts[b] += 1;
    expect(Math.min(...counts)).toBeGreaterThan(0);
  });

  it('serves every integer typed array, at an offset in its buffer too', () => {
    uninstall = installRandomPool();
    for (const C of [Int8Array, Uint8ClampedArray, Uint16Array, Int16Array, Uint32Array, Int32Array, BigUint64Array, BigInt64Array]) {
      const a = new C(8);
      expect(crypto.getRandomValues(a)).toBe(a);
      expect(Array.from(a as ArrayLike<number | bigint>).some((v) => v !== 0 && v !== 0n)).toBe(true);
    }
    const buf = new Uint8Array(32);
    crypto.getRandomValues(new Uint8Array(buf.buffer, 8, 8));
    expect(Array.from(buf.subarray(0, 8))).toEqual(new Array(8).fill(0));
    expect(Array.from(buf.subarray(16))).toEqual(new Array(16).fill(0));
  });

  it('keeps the original errors and large requests', () => {
    uninstall = installRandomPool();
    expect(() => crypto.getRandomValues(new Float32Array(4) as unknown as Uint8Array)).toThrow(/type|integer/i);
    expect(() => crypto.getRandomValues(new Uint8Array(65537))).toThrow(/65,?536|quota/i);
    const big = crypto.getRandomValues(new Uint8Array(4096));
    expect(big.some((b) => b !== 0)).toBe(true);
  });

  it('uninstalls to what Node ships', () => {
    const original = crypto.getRandomValues;
    installRandomPool()();
    expect(crypto.getRandomValues).toBe(original);
    expect(Object.prototype.hasOwnProperty.call(crypto, 'getRandomValues')).toBe(false);
  });
});
