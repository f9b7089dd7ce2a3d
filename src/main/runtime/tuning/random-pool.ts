// tuning/ owns process-wide speed-ups of library internals, each switched by a setting:
// pooled random bytes (here, D-38) and the light run context (run-context.ts, D-40).
//
// crypto.getRandomValues served from a pool in the runtime process (D-38).
//
// LangChain builds a LangSmith RunTree for every runnable call, tracing on or off, and each
// gets a UUIDv7 whose 10 random bytes come from one crypto.getRandomValues call: about 37
// calls an invocation of the example. Each call is one OpenSSL RAND_bytes with its own fork
// check (a getpid system call) and locking: 5-7 µs alone, and under load it measured about a
// quarter of the runtime's CPU per request. Node's own crypto.randomUUID() avoids this by
// drawing its entropy in bulk; this does the same for small getRandomValues calls:
//   - the bytes come from the same CSPRNG (the original getRandomValues), drawn 4 KiB at a time;
//   - each byte is handed out once and wiped from the pool when it is;
//   - anything but an integer typed array of at most 256 bytes goes to the original, so its
//     errors (TypeMismatchError, QuotaExceededError) and every other behaviour are unchanged.
// RANDOM_POOL=off leaves getRandomValues as Node ships it.
import { webcrypto } from 'node:crypto';

const POOL_BYTES = 4096;
const MAX_POOLED = 256;
const INTEGER_ARRAYS = [Uint8Array, Int8Array, Uint8ClampedArray, Uint16Array, Int16Array, Uint32Array, Int32Array, BigUint64Array, BigInt64Array];

type Crypto = webcrypto.Crypto;
type GetRandomValues = Crypto['getRandomValues'];

/** Installs the pool on `target` (the global crypto by default); returns the uninstaller. */
export function installRandomPool(target: Crypto = globalThis.crypto as Crypto): () => void {
  const original = target.getRandomValues;
  const pool = new Uint8Array(POOL_BYTES);
  let offset = POOL_BYTES;
  function getRandomValues<T extends ArrayBufferView | null>(array: T): T {
    if (array === null || array.byteLength > MAX_POOLED || !INTEGER_ARRAYS.some((C) => array instanceof C)) {
      return (original as (a: T) => T).call(target, array);
    }
    const n = array.byteLength;
    if (offset + n > POOL_BYTES) {
      original.call(target, pool);
      offset = 0;
    }
    new Uint8Array(array.buffer, array.byteOffset, n).set(pool.subarray(offset, offset + n));
    pool.fill(0, offset, offset + n);
    offset += n;
    return array;
  }
  Object.defineProperty(target, 'getRandomValues', { value: getRandomValues as GetRandomValues, writable: true, configurable: true, enumerable: true });
  return () => {
    if ((target.getRandomValues as unknown) === getRandomValues) delete (target as { getRandomValues?: unknown }).getRandomValues;
    if (target.getRandomValues !== original)
      Object.defineProperty(target, 'getRandomValues', { value: original, writable: true, configurable: true, enumerable: true });
  };
}

let installed = false;

/** Installs the pool on the global crypto once per process (startRuntime calls it). */
export function useRandomPool(): void {
  if (installed) return;
  installed = true;
  installRandomPool();
}
