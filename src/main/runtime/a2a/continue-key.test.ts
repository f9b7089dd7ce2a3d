import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { CONTINUE_METADATA_KEY } from '../../../shared/thread-state.ts';
import { CONTROL_CREDENTIAL_HEADER } from '../../../shared/breakpoints.ts';
import { takeContinueKey } from './continue-key.ts';

const req = (header?: string) => ({ headers: header === undefined ? {} : { [CONTROL_CREDENTIAL_HEADER]: header } }) as unknown as Request;

describe('the reserved continue key', () => {
  it('is honoured only with the control token in its header, and always taken out of the metadata', () => {
    const meta = { [CONTINUE_METADATA_KEY]: true, userId: 'u' };
    const message = { [CONTINUE_METADATA_KEY]: true };
    expect(takeContinueKey(req('tok'), meta, message, 'tok')).toEqual({ kind: 'continue' });
    expect(meta).toEqual({ userId: 'u' });
    expect(message).toEqual({});
  });

  it('is refused for a wrong or missing token, and on a runtime without one', () => {
    for (const [header, token] of [
      ['nope', 'tok'],
      [undefined, 'tok'],
      ['Bearer tok', 'tok'],
      ['tok', null],
    ] as const) {
      expect(takeContinueKey(req(header), { [CONTINUE_METADATA_KEY]: true }, undefined, token).kind).toBe('refused');
    }
  });

  it('leaves a request without the key alone', () => {
    expect(takeContinueKey(req(), { a: 1 }, undefined, 'tok')).toEqual({ kind: 'absent' });
  });
});
