// The shared Playground schemas: replies read leniently (a client ignores keys it does not know,
// spec 2.6, 9.6), requests strictly (an unknown key is refused, as the router does).
import { describe, expect, it } from 'vitest';
import { CreateRunSchema, InputPartSchema } from './playground-requests.ts';
import { RunEventSchema, RunSummarySchema, ScoreEntrySchema } from './playground.ts';

const summary = {
  run_id: 'run_1',
  session_id: 'ses_1',
  parent_run_id: null,
  origin: 'send',
  status: 'completed',
  reason: null,
  context_id: null,
  task_id: null,
  created_at: '2026-01-01T00:00:00Z',
  started_at: null,
  ended_at: null,
  duration_ms: null,
  input_preview: 'hi',
};

describe('replies', () => {
  it('drop keys a later studio adds, and keep reading the rest', () => {
    expect(RunSummarySchema.parse({ ...summary, added_later: 1 })).toEqual(summary);
    expect(ScoreEntrySchema.parse({ evaluator: 'tone', score: 0.5, confidence: 'high' })).toEqual({ evaluator: 'tone', score: 0.5 });
  });

  it('refuse a reply whose declared fields are missing or of another type', () => {
    const { run_id: _gone, ...noId } = summary;
    expect(RunSummarySchema.safeParse(noId).success).toBe(false);
    expect(RunSummarySchema.safeParse({ ...summary, status: 'finished' }).success).toBe(false);
  });

  it('keep the details a phase event carries next to its declared keys', () => {
    const phase = { seq: 3, run_id: 'run_1', ts: 't', kind: 'run.phase', phase: 'prepare', state: 'failed', reason: 'project_validation' };
    expect(RunEventSchema.parse(phase)).toEqual(phase);
  });
});

describe('requests', () => {
  it('refuse unknown keys and a file part with both or neither of bytes_base64 and uri', () => {
    expect(CreateRunSchema.safeParse({ parts: [{ kind: 'text', text: 'x' }], extra: 1 }).success).toBe(false);
    expect(InputPartSchema.safeParse({ kind: 'text', text: 'x', partial: true }).success).toBe(false);
    expect(InputPartSchema.safeParse({ kind: 'file', bytes_base64: 'aGk=', uri: 'https://x.test/a' }).success).toBe(false);
    expect(InputPartSchema.safeParse({ kind: 'file', name: 'a' }).success).toBe(false);
    expect(InputPartSchema.parse({ kind: 'file', uri: 'https://x.test/a' })).toEqual({ kind: 'file', uri: 'https://x.test/a' });
  });
});
