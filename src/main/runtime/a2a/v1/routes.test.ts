// Which A2A version a request asks for (spec 1.0 sections 3.6.1-3.6.2; D-86): the A2A-Version
// header, else the query parameter; none (or empty) is 0.3; a patch number does not count.
import { describe, expect, it } from 'vitest';
import { requestedVersion } from './routes.ts';

const req = (url: string, headers: Record<string, string> = {}) => {
  const query = Object.fromEntries(new URLSearchParams(url.split('?')[1] ?? ''));
  return { url, headers, query };
};

describe('requestedVersion', () => {
  it('reads the header first, then the query parameter, and is 0.3 when neither names one', () => {
    expect(requestedVersion(req('/'))).toBe('0.3');
    expect(requestedVersion(req('/', { 'a2a-version': '1.0' }))).toBe('1.0');
    expect(requestedVersion(req('/', { 'a2a-version': ' 1.0.2 ' }))).toBe('1.0');
    expect(requestedVersion(req('/', { 'a2a-version': '' }))).toBe('0.3');
    expect(requestedVersion(req('/?A2A-Version=1.0'))).toBe('1.0');
    expect(requestedVersion(req('/?A2A-Version=1.0', { 'a2a-version': '0.3' }))).toBe('0.3');
    expect(requestedVersion(req('/?other=1'))).toBe('0.3');
    expect(requestedVersion(req('/', { 'a2a-version': 'v2' }))).toBe('v2');
  });
});
