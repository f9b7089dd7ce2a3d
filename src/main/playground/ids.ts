// Identifiers (spec 2.6): `ses_<ULID>` and `run_<ULID>`. A monotonic factory keeps ids
// created in the same millisecond ordered, which the cursor paging relies on.
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

export function newSessionId(): string {
  return `ses_${next()}`;
}

export function newRunId(): string {
  return `run_${next()}`;
}

export const SESSION_ID = /^ses_[0-9A-HJKMNP-TV-Z]{26}$/;
export const RUN_ID = /^run_[0-9A-HJKMNP-TV-Z]{26}$/;
