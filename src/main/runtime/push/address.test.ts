import { describe, expect, it } from 'vitest';
import { blockedReason, v6Bytes } from './address.ts';
import { parseConfig, PushInputError, authorizationOf } from './config.ts';
import { retryDelayMs } from './settings.ts';

describe('push callback addresses (D-89)', () => {
  it('refuses IPv4 loopback, private, link-local and other non-public ranges', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.255.254',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '198.18.0.1',
      '192.0.2.5',
    ])
      expect(blockedReason(ip), ip).not.toBeNull();
  });

  it('passes public IPv4 addresses, including the neighbours of blocked ranges', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.128.0.1', '169.253.255.255', '11.0.0.1', '192.169.0.1'])
      expect(blockedReason(ip), ip).toBeNull();
  });

  it('refuses IPv6 loopback, unspecified, unique-local, link-local, site-local, multicast and documentation', () => {
    for (const ip of ['::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'fec0::1', 'ff02::1', '2001:db8::1', '0:0:0:0:0:0:0:1'])
      expect(blockedReason(ip), ip).not.toBeNull();
  });

  it('judges IPv4 inside IPv6 by its IPv4 address: mapped, compatible, NAT64 and 6to4', () => {
    for (const ip of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::FFFF:10.0.0.1',
      '::ffff:169.254.169.254',
      '::127.0.0.1',
      '64:ff9b::10.0.0.1',
      '2002:7f00:1::1',
      '2002:c0a8:101::1',
    ])
      expect(blockedReason(ip), ip).not.toBeNull();
    for (const ip of ['::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) expect(blockedReason(ip), ip).toBeNull();
  });

  it('passes public IPv6 addresses', () => {
    for (const ip of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888']) expect(blockedReason(ip), ip).toBeNull();
  });

  it('refuses what is not an address', () => {
    for (const ip of ['localhost', '', '1.2.3', '::ffff:300.0.0.1', '1:2:3:4:5:6:7:8:9', 'gggg::1']) expect(blockedReason(ip), ip).not.toBeNull();
  });

  it('reads IPv6 forms to the same bytes', () => {
    expect(v6Bytes('::ffff:127.0.0.1')).toEqual(v6Bytes('::ffff:7f00:1'));
    expect(v6Bytes('1::')).toEqual([0, 1, ...Array<number>(14).fill(0)]);
    expect(v6Bytes('1:2:3:4:5:6:7::8')).toBeNull();
  });
});

describe('push configuration input', () => {
  const at = 'params.pushNotificationConfig';
  const field = (input: unknown, allow = false) => {
    try {
      parseConfig(input, at, 'task-1', allow);
      return null;
    } catch (err) {
      return (err as PushInputError).field;
    }
  };

  it('names the field it refuses', () => {
    expect(field(null)).toBe(at);
    expect(field({})).toBe(`${at}.url`);
    expect(field({ url: 'ftp://example.com/x' })).toBe(`${at}.url`);
    expect(field({ url: 'not a url' })).toBe(`${at}.url`);
    expect(field({ url: 'https://u:p@example.com/' })).toBe(`${at}.url`);
    expect(field({ url: 'http://127.0.0.1:9/hook' })).toBe(`${at}.url`);
    expect(field({ url: 'http://[::ffff:127.0.0.1]/hook' })).toBe(`${at}.url`);
    expect(field({ url: 'http://169.254.169.254/latest' })).toBe(`${at}.url`);
    expect(field({ url: 'https://example.com/', token: 5 })).toBe(`${at}.token`);
    expect(field({ url: 'https://example.com/', id: '' })).toBe(`${at}.id`);
    expect(field({ url: 'https://example.com/', authentication: { schemes: ['OAuth2'] } })).toBe(`${at}.authentication.schemes`);
    expect(field({ url: 'https://example.com/', authentication: { schemes: ['Bearer'] } })).toBe(`${at}.authentication.credentials`);
  });

  it('takes a loopback URL with PUSH_ALLOW_PRIVATE, and the task id for a missing id', () => {
    expect(field({ url: 'http://127.0.0.1:9/hook' }, true)).toBeNull();
    expect(parseConfig({ url: 'https://example.com/h', token: 't' }, at, 'task-1', false)).toEqual({ id: 'task-1', url: 'https://example.com/h', token: 't' });
  });

  it('sends the authentication it can', () => {
    expect(authorizationOf({ schemes: ['bearer'], credentials: 'abc' })).toBe('Bearer abc');
    expect(authorizationOf({ schemes: ['Basic'], credentials: 'dTpw' })).toBe('Basic dTpw');
    expect(authorizationOf(undefined)).toBeNull();
  });

  it('backs off by doubling up to the cap', () => {
    const s = { retryBaseMs: 100, retryMaxMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(s, n))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});
