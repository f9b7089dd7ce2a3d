import { describe, expect, it } from 'vitest';
import { invokeModelCall, toMessage } from './model-call.ts';
import { ManagementError } from '../management/envelope.ts';

const deps = (env: Record<string, string>) => ({ env, model: () => ({}), fetch: () => Promise.reject(new Error('no network in this test')) });

describe('the playground model call', () => {
  it('refuses with MODEL_NOT_CONFIGURED when only the offline scripted model is there', async () => {
    for (const env of [{} as Record<string, string>, { MODEL_PROVIDER: 'scripted', OPENAI_BASE_URL: 'http://x/v1' }]) {
      const err = await invokeModelCall(deps(env), { messages: [{ role: 'human', content: 'hi' }], params: {} }).catch((e) => e);
      expect(err).toBeInstanceOf(ManagementError);
      expect(err.code).toBe('MODEL_NOT_CONFIGURED');
      expect(err.message).toContain('No model is configured');
    }
  });

  it('reads recorded messages in LangChain types and OpenAI roles, tool calls included', () => {
    expect(toMessage({ role: 'user', content: 'a' }, 0).getType()).toBe('human');
    const ai = toMessage({ role: 'ai', content: '', tool_calls: [{ name: 'lookup', args: { q: 1 }, id: 'c1' }] }, 1) as unknown as { tool_calls: unknown[] };
    expect(ai.tool_calls).toEqual([{ name: 'lookup', args: { q: 1 }, id: 'c1', type: 'tool_call' }]);
    expect(() => toMessage({ role: 'tool', content: 'x' }, 2)).toThrow('messages[2]: a tool message needs tool_call_id');
  });

  it("answers a provider failure as the call's error, not a failed request", async () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k', OPENAI_MODEL: 'm', MODEL_MAX_RETRIES: '0' };
    const r = await invokeModelCall(deps(env), { messages: [{ role: 'human', content: 'hi' }], params: {} });
    expect(r.provider).toBe('openai');
    expect(r.output_messages).toEqual([]);
    expect(r.error).toBeTruthy();
  });
});
