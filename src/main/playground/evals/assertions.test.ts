import { describe, expect, it } from 'vitest';
import type { Assertion } from '../../../shared/datasets.ts';
import { checkAssertion, type AssertionContext, type CaseOutcome } from './assertions.ts';

const answer = { schema: 'support.answer/1', intents: ['refund', 'order_status'], verdict: 'approved', order: { id: 'ORD-12345', total: 42.5 } };

function outcome(over: Partial<CaseOutcome> = {}): CaseOutcome {
  return {
    status: 'completed',
    reason: null,
    error_code: null,
    output_parts: [
      { kind: 'text', text: 'Your refund for ORD-12345 is approved.' },
      { kind: 'data', data: answer },
    ],
    duration_ms: 120,
    scores: [{ evaluator: 'polite', score: 0.9 }],
    ...over,
  };
}

async function check(a: Assertion, o = outcome(), ctx: AssertionContext = {}) {
  return checkAssertion(a, o, ctx);
}

describe('text assertions', () => {
  it('equals: exact, or ignoring case; the failure shows both texts', async () => {
    expect((await check({ type: 'text_equals', value: 'Your refund for ORD-12345 is approved.' })).status).toBe('pass');
    expect((await check({ type: 'text_equals', value: 'your REFUND for ord-12345 is approved.', ignore_case: true })).status).toBe('pass');
    const r = await check({ type: 'text_equals', value: 'Denied.' });
    expect(r).toMatchObject({ status: 'fail', label: 'text_equals "Denied."' });
    expect(r.message).toBe('expected the answer "Denied.", got "Your refund for ORD-12345 is approved."');
  });

  it('contains and not-contains', async () => {
    expect((await check({ type: 'text_contains', value: 'approved' })).status).toBe('pass');
    const r = await check({ type: 'text_contains', value: 'denied' });
    expect(r.status).toBe('fail');
    expect(r.message).toContain('expected the answer to contain "denied"');
    expect((await check({ type: 'text_not_contains', value: 'denied' })).status).toBe('pass');
    expect((await check({ type: 'text_not_contains', value: 'APPROVED', ignore_case: true })).message).toContain('not to contain "APPROVED"');
  });

  it('regex: matches, fails, and a bad pattern is an error that names it', async () => {
    expect((await check({ type: 'text_regex', pattern: 'ORD-\\d{5}' })).status).toBe('pass');
    expect((await check({ type: 'text_regex', pattern: '^denied', flags: 'i' })).status).toBe('fail');
    const r = await check({ type: 'text_regex', pattern: '(' });
    expect(r.status).toBe('error');
    expect(r.message).toContain('invalid regular expression /(/');
  });

  it('joins several text parts with newlines', async () => {
    const o = outcome({
      output_parts: [
        { kind: 'text', text: 'a' },
        { kind: 'text', text: 'b' },
      ],
    });
    expect((await check({ type: 'text_equals', value: 'a\nb' }, o)).status).toBe('pass');
  });
});

describe('JSON path assertions', () => {
  it('equals: a single match compares as itself, several as a list', async () => {
    expect((await check({ type: 'json_path_equals', path: '$.verdict', value: 'approved' })).status).toBe('pass');
    expect((await check({ type: 'json_path_equals', path: '$.intents[*]', value: ['refund', 'order_status'] })).status).toBe('pass');
    const r = await check({ type: 'json_path_equals', path: '$.order.total', value: 40 });
    expect(r).toMatchObject({ status: 'fail', message: 'expected $.order.total to be 40, got 42.5' });
  });

  it('matches: every match must match the pattern', async () => {
    expect((await check({ type: 'json_path_matches', path: '$.order.id', pattern: '^ORD-' })).status).toBe('pass');
    const r = await check({ type: 'json_path_matches', path: '$.intents[*]', pattern: '^refund$' });
    expect(r).toMatchObject({ status: 'fail', message: 'expected $.intents[*] to match /^refund$/, got "order_status"' });
  });

  it('exists and absent', async () => {
    expect((await check({ type: 'json_path_exists', path: '$.order.id' })).status).toBe('pass');
    expect((await check({ type: 'json_path_exists', path: '$.refund_id' })).message).toContain('expected $.refund_id to exist');
    expect((await check({ type: 'json_path_exists', path: '$.refund_id', exists: false })).status).toBe('pass');
    expect((await check({ type: 'json_path_exists', path: '$.verdict', exists: false })).message).toBe('expected $.verdict to be absent, found "approved"');
  });

  it('picks the DataPart by schema id, and says when there is none', async () => {
    const o = outcome({
      output_parts: [
        { kind: 'data', data: { schema: 'other/1', verdict: 'x' } },
        { kind: 'data', data: answer },
      ],
    });
    expect((await check({ type: 'json_path_equals', path: '$.verdict', value: 'approved', part: 'support.answer/1' }, o)).status).toBe('pass');
    expect((await check({ type: 'json_path_equals', path: '$.verdict', value: 'x' }, o)).status).toBe('pass');
    const r = await check({ type: 'json_path_equals', path: '$.verdict', value: 'x', part: 'missing/1' }, o);
    expect(r).toMatchObject({ status: 'fail', message: 'the output has no DataPart with schema "missing/1"' });
    expect((await check({ type: 'json_path_exists', path: '$.a' }, outcome({ output_parts: [] }))).message).toBe('the output has no DataPart');
  });

  it('a path that does not start with $ is an error', async () => {
    const r = await check({ type: 'json_path_equals', path: 'verdict', value: 'approved' });
    expect(r.status).toBe('error');
    expect(r.message).toContain('starts with "$"');
  });
});

describe('schema assertions', () => {
  const schema = { type: 'object', required: ['verdict'], properties: { verdict: { enum: ['approved', 'denied'] } } };

  it('validates the DataPart against an inline schema or a project file', async () => {
    expect((await check({ type: 'json_schema', schema })).status).toBe('pass');
    const bad = outcome({ output_parts: [{ kind: 'data', data: { verdict: 'maybe' } }] });
    const r = await check({ type: 'json_schema', schema }, bad);
    expect(r.status).toBe('fail');
    expect(r.message).toBe('the DataPart does not validate: /verdict must be one of: approved, denied');
    const files = { 'contracts/answer.json': schema };
    const ctx = { readSchemaFile: (p: string) => files[p as keyof typeof files] ?? null };
    expect((await check({ type: 'json_schema', schema_file: 'contracts/answer.json' }, outcome(), ctx)).status).toBe('pass');
    expect((await check({ type: 'json_schema', schema_file: 'contracts/nope.json' }, outcome(), ctx)).message).toBe(
      'cannot read the schema file "contracts/nope.json"',
    );
  });

  it('data_schema_id finds a DataPart by its schema id', async () => {
    expect((await check({ type: 'data_schema_id', value: 'support.answer/1' })).status).toBe('pass');
    const r = await check({ type: 'data_schema_id', value: 'support.ticket/1' });
    expect(r.message).toBe('expected a DataPart with schema "support.ticket/1", got "support.answer/1"');
  });
});

describe('run assertions', () => {
  it('final state, with reason and errorCode', async () => {
    expect((await check({ type: 'final_state', state: 'completed' })).status).toBe('pass');
    const failed = outcome({ status: 'failed', reason: 'agent_error', error_code: 'UPSTREAM_TIMEOUT' });
    expect((await check({ type: 'final_state', state: 'completed' }, failed)).message).toBe('expected the run to end completed, it ended failed (agent_error)');
    expect((await check({ type: 'final_state', state: 'failed', error_code: 'UPSTREAM_TIMEOUT' }, failed)).status).toBe('pass');
    expect((await check({ type: 'final_state', state: 'failed', error_code: 'RATE_LIMITED' }, failed)).message).toBe(
      'expected errorCode RATE_LIMITED, got UPSTREAM_TIMEOUT',
    );
    const asked = outcome({ status: 'input_required', reason: 'agent_question' });
    expect((await check({ type: 'final_state', state: 'input_required' }, asked)).status).toBe('pass');
  });

  it('latency under a bound', async () => {
    expect((await check({ type: 'latency_under', ms: 500 })).status).toBe('pass');
    expect((await check({ type: 'latency_under', ms: 100 })).message).toBe('took 120 ms, expected under 100 ms');
    expect((await check({ type: 'latency_under', ms: 100 }, outcome({ duration_ms: null }))).status).toBe('fail');
  });

  it("an evaluator's score at least a threshold", async () => {
    expect((await check({ type: 'evaluator_at_least', evaluator: 'polite', min: 0.8 })).status).toBe('pass');
    expect((await check({ type: 'evaluator_at_least', evaluator: 'polite', min: 0.95 })).message).toBe('polite scored 0.9, expected at least 0.95');
    expect((await check({ type: 'evaluator_at_least', evaluator: 'grounded', min: 0.5 })).message).toBe('the evaluator "grounded" gave no score on this run');
  });
});

describe('matches_reference', () => {
  const reference = {
    status: 'completed' as const,
    parts: [
      { kind: 'text' as const, text: 'Your refund for ORD-12345 is approved.' },
      { kind: 'data' as const, data: answer },
    ],
  };

  it('passes on the same output and names what differs otherwise', async () => {
    expect((await check({ type: 'matches_reference' }, outcome(), { reference })).status).toBe('pass');
    const changed = outcome({ output_parts: [reference.parts[0]!, { kind: 'data', data: { ...answer, verdict: 'denied' } }] });
    const r = await check({ type: 'matches_reference' }, changed, { reference });
    expect(r.status).toBe('fail');
    expect(r.message).toContain('support.answer/1/verdict replace "approved" -> "denied"');
  });

  it('takes the compare options: ignored paths, numeric tolerance, arrays as sets', async () => {
    const other = outcome({
      output_parts: [reference.parts[0]!, { kind: 'data', data: { ...answer, intents: ['order_status', 'refund'], order: { id: 'ORD-12345', total: 42.51 } } }],
    });
    expect((await check({ type: 'matches_reference' }, other, { reference })).status).toBe('fail');
    expect((await check({ type: 'matches_reference', arrays: 'set', tolerance: 0.05 }, other, { reference })).status).toBe('pass');
    expect((await check({ type: 'matches_reference', ignore: ['/intents/**', '/order/total'] }, other, { reference })).status).toBe('pass');
  });

  it('a different final state fails before the parts are compared; no reference is an error', async () => {
    expect((await check({ type: 'matches_reference' }, outcome({ status: 'failed' }), { reference })).message).toContain('as the reference did');
    expect((await check({ type: 'matches_reference' })).status).toBe('error');
  });
});

describe('llm_judge', () => {
  it('is skipped with the reason when no real model is configured', async () => {
    const r = await check({ type: 'llm_judge', rubric: 'polite and correct' });
    expect(r).toMatchObject({ status: 'skipped' });
    expect(r.message).toContain('no real model is configured');
  });

  it('passes or fails on the judge score against min (default 0.5); a failing judge is an error', async () => {
    const judge = async (rubric: string) => ({ score: rubric.includes('polite') ? 0.8 : 0.2, reason: 'because' });
    expect((await check({ type: 'llm_judge', rubric: 'polite' }, outcome(), { judge })).status).toBe('pass');
    expect((await check({ type: 'llm_judge', rubric: 'rude' }, outcome(), { judge })).message).toBe('judged 0.2, expected at least 0.5: because');
    const broken = async () => {
      throw new Error('model answered 500');
    };
    expect((await check({ type: 'llm_judge', rubric: 'x' }, outcome(), { judge: broken })).message).toBe('the judge failed: model answered 500');
  });
});
