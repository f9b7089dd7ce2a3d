// The management API's parameter schemas answer with the API's own messages and name the
// field (docs/management-api.md): INVALID_PARAM with `field`, or `fields` for unknown ones.
import { describe, expect, it } from 'vitest';
import { ManagementError } from './envelope.ts';
import { CardUrlSchema, DeleteAllThreadsQuerySchema, MemoryPatchSchema, MigrateAgentIdSchema, parseParams } from './schemas.ts';

function refusal(fn: () => unknown): ManagementError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ManagementError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('management parameter schemas', () => {
  it('checks the card URL in the order the API always has', () => {
    const cases: [unknown, string][] = [
      [{}, "'url' is required."],
      [{ url: 42 }, "'url' must be a string."],
      [{ url: '/relative' }, "'url' must be an absolute http(s) URL."],
      [{ url: 'ftp://x.example.com' }, "'url' must be an absolute http(s) URL."],
      [{ url: 'https://a.example.com/a b' }, "'url' must not contain spaces or control characters: percent-encode them."],
    ];
    for (const [body, message] of cases) {
      const err = refusal(() => parseParams(CardUrlSchema, body));
      expect({ code: err.code, message: err.message, extra: err.extra }).toEqual({ code: 'INVALID_PARAM', message, extra: { field: 'url' } });
    }
    expect(parseParams(CardUrlSchema, { url: 'https://agents.example.com/a2a', other: 1 })).toEqual({ url: 'https://agents.example.com/a2a' });
  });

  it('names unknown memory fields before any wrong value, and needs at least one field', () => {
    const unknown = refusal(() => parseParams(MemoryPatchSchema, { window_size: 0, colour: 'red' }));
    expect(unknown.message).toBe('Unknown field(s): colour. Changeable: summarize, window_size, summarize_threshold.');
    expect(unknown.extra).toEqual({ fields: ['colour'] });
    expect(refusal(() => parseParams(MemoryPatchSchema, {})).message).toBe('Give at least one of summarize, window_size, summarize_threshold.');
    expect(refusal(() => parseParams(MemoryPatchSchema, { summarize: 'yes' })).extra).toEqual({ field: 'summarize' });
    for (const bad of [0, -1, 2.5, '3', null]) {
      const err = refusal(() => parseParams(MemoryPatchSchema, { summarize_threshold: bad }));
      expect([err.message, err.extra]).toEqual(["'summarize_threshold' must be a positive integer.", { field: 'summarize_threshold' }]);
    }
    expect(parseParams(MemoryPatchSchema, { window_size: 3, summarize: true })).toEqual({ window_size: 3, summarize: true });
  });

  it('asks for all=true to delete every thread', () => {
    for (const query of [{}, { all: 'yes' }, { all: ['true', 'true'] }]) {
      expect(refusal(() => parseParams(DeleteAllThreadsQuerySchema, query)).extra).toEqual({ field: 'all' });
    }
    expect(parseParams(DeleteAllThreadsQuerySchema, { all: 'true' })).toEqual({ all: 'true' });
  });

  it('checks old_id, then new_id, then that they differ', () => {
    expect(refusal(() => parseParams(MigrateAgentIdSchema, {})).message).toBe("'old_id' is required.");
    expect(refusal(() => parseParams(MigrateAgentIdSchema, { old_id: ' ' })).message).toBe("'old_id' must be a non-empty string.");
    expect(refusal(() => parseParams(MigrateAgentIdSchema, { old_id: 'a' })).message).toBe("'new_id' is required.");
    expect(refusal(() => parseParams(MigrateAgentIdSchema, { old_id: 'a', new_id: 5 })).message).toBe("'new_id' must be a non-empty string.");
    const same = refusal(() => parseParams(MigrateAgentIdSchema, { old_id: 'a', new_id: 'a' }));
    expect([same.message, same.extra]).toEqual(["'old_id' and 'new_id' must differ.", { field: 'new_id' }]);
  });
});
