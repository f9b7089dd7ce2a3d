import { describe, expect, it } from 'vitest';
import { currentCallScope, describeDifference, openCallSession, ReplayMismatchError, requestHash, withCallScope } from './call-record.ts';

describe('call sessions', () => {
  it('numbers calls per kind, node and branch, so concurrent branches keep their own order', () => {
    const { session, close } = openCallSession('t-keys', { record: true, replay: null, emit: () => {} });
    try {
      expect(session.next('model', 'work', 'a', 'h').index).toBe(0);
      expect(session.next('model', 'work', 'b', 'h').index).toBe(0);
      expect(session.next('model', 'work', 'a', 'h').index).toBe(1);
      expect(session.next('fetch', 'work', 'a', 'h').index).toBe(0);
      expect(session.next('model', 'work', null, 'h').index).toBe(0);
    } finally {
      close();
    }
  });

  it('answers a matching call, names the call and the difference on a mismatch, or lets it go live', () => {
    const request = { messages: [{ role: 'system', content: 'Prompt v1' }] };
    const answers = [{ kind: 'model' as const, key: { node: 'respond', branch: null, index: 0, hash: requestHash(request) }, request, output_messages: [] }];
    const strict = openCallSession('t-strict', { record: false, replay: { on_mismatch: 'error', answers }, emit: () => {} });
    try {
      expect(strict.session.answer('model', strict.session.next('model', 'respond', null, requestHash(request)), request)).toBe(answers[0]);
      const changed = { messages: [{ role: 'system', content: 'Prompt v2' }] };
      const err = (() => {
        try {
          strict.session.answer('model', { node: 'respond', branch: null, index: 0, hash: requestHash(changed) }, changed);
        } catch (e) {
          return e as ReplayMismatchError;
        }
      })();
      expect(err).toBeInstanceOf(ReplayMismatchError);
      expect(err!.reason).toBe('replay_mismatch');
      expect(err!.message).toContain("model call #0 of node 'respond'");
      expect(err!.message).toContain('messages[0].content was "Prompt v1", now "Prompt v2"');
      expect(() => strict.session.answer('model', { node: 'respond', branch: null, index: 1, hash: 'x' }, changed)).toThrow(
        /made no such call \(it made 1 there\)/,
      );
    } finally {
      strict.close();
    }
    const live = openCallSession('t-live', { record: false, replay: { on_mismatch: 'live', answers }, emit: () => {} });
    try {
      expect(live.session.answer('model', { node: 'respond', branch: null, index: 0, hash: 'other' }, {})).toBeNull();
      expect(live.session.live).toBe(1);
    } finally {
      live.close();
    }
  });

  it('describes where two requests first differ', () => {
    expect(describeDifference({ a: [1, 2] }, { a: [1, 2, 3] })).toBe('a[2] is new (3)');
    expect(describeDifference({ a: 1 }, { a: 1 })).toBe('none');
    expect(describeDifference({ a: [1] }, {})).toBe('a was [1], now nothing');
  });

  it('gives a recording run its call scope, nested scopes merged, and leaves runs without a session as they are', async () => {
    // No run records or replays: the scope is not entered (D-114), whatever fn returns.
    expect(await withCallScope({ branch: { label: 'a', span_id: 's-a' } }, async () => currentCallScope())).toBeUndefined();
    const { close } = openCallSession('t-scope', { record: true, replay: null, emit: () => {} });
    try {
      const seen = await withCallScope({ branch: { label: 'a', span_id: 's-a' } }, async () => {
        await Promise.resolve();
        return withCallScope({ kind: 'agent' }, async () => currentCallScope());
      });
      expect(seen).toEqual({ branch: { label: 'a', span_id: 's-a' }, kind: 'agent' });
      expect(currentCallScope()).toBeUndefined();
    } finally {
      close();
    }
  });
});
