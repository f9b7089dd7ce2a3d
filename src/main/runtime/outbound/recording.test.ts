import { describe, expect, it } from 'vitest';
import { redactBody, redactHeaders, redactUrl } from './recording.ts';

describe('recorded call redaction (docs/runtime-traces.md, "Recorded calls")', () => {
  it('never keeps credentials in headers, URLs or JSON bodies', () => {
    expect(redactHeaders({ Authorization: 'Bearer x', 'X-Api-Key': 'k', 'x-my-token': 't', accept: 'json', cookie: 'c' })).toEqual({
      authorization: '[redacted]',
      'x-api-key': '[redacted]',
      'x-my-token': '[redacted]',
      accept: 'json',
      cookie: '[redacted]',
    });
    expect(redactUrl('https://user:pw@h.example/p?api_key=1&q=ok')).toBe('https://h.example/p?api_key=%5Bredacted%5D&q=ok');
    expect(redactBody({ q: 'ok', nested: [{ password: 'p', max_tokens: 5 }], client_secret: 's' })).toEqual({
      q: 'ok',
      nested: [{ password: '[redacted]', max_tokens: 5 }],
      client_secret: '[redacted]',
    });
  });
});
