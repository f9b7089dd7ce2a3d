import { describe, expect, it } from 'vitest';
import { childContextId } from './agent-call.ts';

describe('childContextId', () => {
  it('is one UUID per (conversation, agent): stable across turns, distinct per agent and per conversation', () => {
    const a = childContextId('ctx-1', 'http://desk/');
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(childContextId('ctx-1', 'http://desk/')).toBe(a);
    expect(childContextId('ctx-1', 'http://other/')).not.toBe(a);
    expect(childContextId('ctx-2', 'http://desk/')).not.toBe(a);
    expect(a).not.toBe('ctx-1');
  });
});
