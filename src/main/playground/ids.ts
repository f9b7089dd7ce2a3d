// Identifiers (spec 2.6): `ses_<ULID>` and `run_<ULID>`. A monotonic factory keeps ids
// created in the same millisecond ordered, which the cursor paging relies on.
import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const pool = Buffer.alloc(4096);
let drawn = pool.length;

/** The ULIDs' randomness: crypto bytes drawn 4 KiB at a time. ulid's default source makes one
 * crypto call a character, 16 an id, which showed in the experiment profile
 * (docs/performance.md, "Experiments"). Each character takes a byte's top five bits. */
export function pooledRandom(): number {
  if (drawn >= pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  return pool[drawn++]! / 256;
}

/** A monotonic ULID factory on the pooled randomness. */
export const ulidFactory = (): ((seedTime?: number) => string) => monotonicFactory(pooledRandom);

const next = ulidFactory();

export function newSessionId(): string {
  return `ses_${next()}`;
}

export function newRunId(): string {
  return `run_${next()}`;
}

export const SESSION_ID = /^ses_[0-9A-HJKMNP-TV-Z]{26}$/;
export const RUN_ID = /^run_[0-9A-HJKMNP-TV-Z]{26}$/;
