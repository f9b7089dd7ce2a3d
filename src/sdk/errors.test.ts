import { describe, expect, it } from 'vitest';
import { AgentError, DEFAULT_RETRIABLE, ValueError, defineErrorCatalogue } from './errors.ts';

describe('AgentError and the error catalogue (spec 7.2)', () => {
  it('carries code, reason, message and a retriable flag defaulted per code', () => {
    const e = new AgentError({ code: 'UPSTREAM_TIMEOUT', reason: 'slow_model', message: 'too slow' });
    expect(e.toDataPart()).toEqual({ errorCode: 'UPSTREAM_TIMEOUT', errorReason: 'slow_model', errorMessage: 'too slow', retriable: true });
    expect(new AgentError({ code: 'INVALID_INPUT', reason: 'x', message: 'm' }).retriable).toBe(false);
    expect(new AgentError({ code: 'RATE_LIMITED', reason: 'x', message: 'm', retriable: false }).retriable).toBe(false);
  });

  it('documents retriable defaults: only the three upstream codes retry', () => {
    expect(
      Object.entries(DEFAULT_RETRIABLE)
        .filter(([, v]) => v)
        .map(([k]) => k)
        .sort(),
    ).toEqual(['RATE_LIMITED', 'UPSTREAM_TIMEOUT', 'UPSTREAM_UNAVAILABLE']);
  });

  it('rejects an invalid standard code with a TypeError when the raiser is built', () => {
    expect(() => defineErrorCatalogue({ 'X-1': { code: 'TEAPOT' as never, reason: 'r', title: 't' } })).toThrow(TypeError);
    expect(() => new AgentError({ code: 'NOPE' as never, reason: 'r', message: 'm' })).toThrow(TypeError);
  });

  it('maps a domain code to its standard code, reason, title and retriable flag', () => {
    const errors = defineErrorCatalogue({ 'SD-404': { code: 'NOT_FOUND', reason: 'order_not_found', title: 'Order not found', retriable: false } });
    const e = errors.error('SD-404');
    expect(e).toBeInstanceOf(AgentError);
    expect(e.toDataPart()).toEqual({
      errorCode: 'NOT_FOUND',
      errorReason: 'order_not_found',
      errorMessage: 'Order not found',
      retriable: false,
      domainCode: 'SD-404',
      domainTitle: 'Order not found',
    });
    expect(() => errors.raise('SD-404', 'custom')).toThrow('custom');
  });

  it('raises a ValueError for an unknown catalogue code', () => {
    const errors = defineErrorCatalogue({});
    expect(() => errors.error('SD-1')).toThrow(ValueError);
  });
});
