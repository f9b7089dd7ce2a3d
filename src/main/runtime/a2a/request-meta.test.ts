// Input checks of the JSON-RPC front door that need no server.
import { describe, expect, it } from 'vitest';
import { isBase64, validateMessage } from './request-meta.ts';

describe('isBase64', () => {
  it('accepts padded standard base64 and refuses everything else', () => {
    for (const ok of ['', 'aGVsbG8=', 'aGVsbA==', 'aGVs', '+/+/']) expect(isBase64(ok), ok).toBe(true);
    for (const bad of ['aGVsbG8', 'aGVsbG8==', 'a===', '=aGV', 'aG Vs', 'aGV-', 'aGVs\n', 'aG=s']) expect(isBase64(bad), bad).toBe(false);
  });

  it('checks 40 MB in one pass without a stack overflow', () => {
    const big = Buffer.alloc(30 * 1024 * 1024, 1).toString('base64');
    expect(isBase64(big)).toBe(true);
    expect(isBase64(`${big.slice(0, -1)}!`)).toBe(false);
  });
});

describe('validateMessage', () => {
  const message = (extra: Record<string, unknown>) => ({ messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'hi' }], ...extra });
  it('names the field of a wrongly typed optional message member', () => {
    expect(() => validateMessage(message({ taskId: 3 }))).toThrow(/params\.message\.taskId/);
    expect(() => validateMessage(message({ referenceTaskIds: ['a', 1] }))).toThrow(/referenceTaskIds/);
    expect(() => validateMessage(message({ extensions: 'x' }))).toThrow(/extensions/);
    expect(() => validateMessage(message({ parts: [{ kind: 'text', text: 'x', metadata: [] }] }))).toThrow(/parts\[0\]\.metadata/);
    expect(() => validateMessage(message({ parts: [{ kind: 'file', file: { uri: 'https://x/y', name: 5 } }] }))).toThrow(/file\.name/);
    expect(() => validateMessage(message({ taskId: 't', referenceTaskIds: ['a'], extensions: [], metadata: {} }))).not.toThrow();
  });
});
