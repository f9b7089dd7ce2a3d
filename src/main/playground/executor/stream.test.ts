import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMPTY_STREAM, idsOf, outcomeOf, readEvent, type StreamEvent } from './stream.ts';

// Streams recorded from the real runtime serving examples/support-desk over message/stream:
// a completed answer in three chunks, a question (input-required), an agent failure
// (order not found), and a task cancelled with tasks/cancel after its first chunk.
const recorded = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'stream-recordings.json'), 'utf8')) as Record<
  'completed' | 'input_required' | 'failed' | 'canceled',
  StreamEvent[]
>;

function fold(events: readonly StreamEvent[]) {
  let state = EMPTY_STREAM;
  const deltas: string[] = [];
  for (const ev of events) {
    const step = readEvent(state, ev);
    state = step.state;
    deltas.push(...step.deltas);
  }
  return { state, deltas };
}

describe('A2A stream outcome (spec 3, 4.1)', () => {
  it('completed: the last-chunk artifact is the answer; the chunks are streamed text', () => {
    const { state, deltas } = fold(recorded.completed);
    const artifact = recorded.completed.find((e) => e.kind === 'artifact-update' && e.lastChunk);
    expect(deltas).toHaveLength(3);
    expect(state.streamed).toBe(deltas.join(''));
    expect(outcomeOf(recorded.completed)).toEqual({
      kind: 'completed',
      a2aState: 'completed',
      parts: artifact?.kind === 'artifact-update' ? artifact.artifact.parts : null,
      chunks: 3,
    });
  });

  it('input-required: the question is the status message', () => {
    const outcome = outcomeOf(recorded.input_required);
    expect(outcome.kind).toBe('input_required');
    if (outcome.kind !== 'input_required') return;
    expect(outcome.parts?.map((p) => p.kind)).toEqual(['text', 'data']);
    expect(outcome.chunks).toBe(0);
  });

  it('failed: the status message and the error artifact are kept', () => {
    const outcome = outcomeOf(recorded.failed);
    expect(outcome).toMatchObject({ kind: 'failed', a2aState: 'failed', chunks: 0 });
    if (outcome.kind !== 'failed') return;
    expect(outcome.artifact?.[0]).toMatchObject({ kind: 'data', data: { errorCode: 'NOT_FOUND' } });
    expect(outcome.parts?.map((p) => p.kind)).toEqual(['text', 'data']);
  });

  it('canceled: a task cancelled after its first chunk', () => {
    expect(outcomeOf(recorded.canceled)).toEqual({ kind: 'canceled', a2aState: 'canceled', chunks: 1 });
  });

  it('a stream that closes before its final status ended early', () => {
    expect(outcomeOf(recorded.completed.slice(0, -1))).toEqual({ kind: 'ended_early' });
    expect(outcomeOf([])).toEqual({ kind: 'ended_early' });
  });

  it('a stream that threw is broken, with the events read before', () => {
    const error = new Error('socket hang up');
    expect(outcomeOf(recorded.completed.slice(0, 3), { error })).toEqual({ kind: 'broken', error, received: 3 });
  });

  it('ignores everything after the first final status', () => {
    const late: StreamEvent = { ...(recorded.completed[2] as Extract<StreamEvent, { kind: 'artifact-update' }>) };
    const { state, deltas } = fold([...recorded.canceled, late, ...recorded.completed.slice(-1)]);
    expect(deltas).toHaveLength(1);
    expect(state.final?.state).toBe('canceled');
    expect(state.received).toBe(recorded.canceled.length + 2);
  });

  it('a bare message is a completed answer', () => {
    const message: StreamEvent = { kind: 'message', messageId: 'm1', role: 'agent', parts: [{ kind: 'text', text: 'hi' }] };
    expect(outcomeOf([message])).toEqual({ kind: 'completed', a2aState: 'completed', parts: [{ kind: 'text', text: 'hi' }], chunks: 0 });
  });

  it('a completed status with no artifact answers with the streamed text', () => {
    const withoutArtifact = recorded.completed.filter((e) => !(e.kind === 'artifact-update' && e.lastChunk));
    const { state } = fold(withoutArtifact);
    expect(outcomeOf(withoutArtifact)).toMatchObject({ kind: 'completed', parts: [{ kind: 'text', text: state.streamed }] });
  });

  it('auth-required and unknown final states are unsupported', () => {
    const last = recorded.input_required.at(-1) as Extract<StreamEvent, { kind: 'status-update' }>;
    const auth: StreamEvent = { ...last, status: { ...last.status, state: 'auth-required' } };
    expect(outcomeOf([auth])).toMatchObject({ kind: 'unsupported', a2aState: 'auth-required' });
  });

  it('names the ids of task and update events', () => {
    const [task, working] = recorded.completed;
    expect(idsOf(task!)).toEqual({ contextId: (task as { contextId: string }).contextId, taskId: (task as { id: string }).id });
    expect(idsOf(working!).taskId).toBe((task as { id: string }).id);
    expect(idsOf({ kind: 'message', messageId: 'm', role: 'agent', parts: [] })).toEqual({});
  });
});
