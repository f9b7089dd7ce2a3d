import { describe, expect, it } from 'vitest';
import { editedChannels } from './fork-edit.ts';

describe('editedChannels', () => {
  const original = { intents: ['refund', 'order_status'], messages: [{ type: 'human', content: 'hi' }] };

  it('answers only the channels that changed', () => {
    const text = JSON.stringify({ ...original, intents: ['order_status'] });
    expect(editedChannels(original, text)).toEqual({ values: { intents: ['order_status'] } });
  });

  it('refuses what is not a JSON object, and an edit that changes nothing', () => {
    expect(editedChannels(original, '{ nope')).toHaveProperty('error');
    expect(editedChannels(original, '[1]')).toEqual({ error: 'The state is a JSON object of channels.' });
    expect(editedChannels(original, JSON.stringify(original))).toHaveProperty('error');
  });
});
