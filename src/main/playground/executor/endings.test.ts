import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BlobStore } from '../store/blobs.ts';
import { answerEnd, cancelEnd, restartEnd, streamFailedEnd, unavailableEnd, validationEnd, type Answer } from './endings.ts';
import { transition } from './lifecycle.ts';
import type { RuntimeHandle } from './runtime.ts';
import { outcomeOf, type StreamEvent } from './stream.ts';

const blobs = new BlobStore(fs.mkdtempSync(path.join(os.tmpdir(), 'pg-endings-')));
const recorded = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'stream-recordings.json'), 'utf8')) as Record<string, StreamEvent[]>;
const answer = (name: string) => outcomeOf(recorded[name]!) as Answer;

/** The parts of RuntimeHandle an ending reads, for a runtime that never became ready. */
function unreachable(diagnostics: { file: string; message: string }[] | null): RuntimeHandle {
  return {
    startDiagnostics: () => diagnostics,
    recommendedRunCommand: () => 'npx agent-studio serve',
    unavailableDetail: () => 'port in use',
  } as Partial<RuntimeHandle> as RuntimeHandle;
}

describe('run endings (docs/playground-api.md "Tagged parts")', () => {
  it('completed: the artifact parts, and the invoke phase with the A2A state and chunks', () => {
    const e = answerEnd(answer('completed'), blobs);
    expect(e.event).toBe('agent_completed');
    expect(e.phase).toEqual({ name: 'invoke', state: 'completed', detail: { a2a_state: 'completed', chunks: 3 } });
    expect(e.parts.map((p) => p.kind)).toEqual(['text', 'data']);
  });

  it('input-required: the question, then a status part', () => {
    const e = answerEnd(answer('input_required'), blobs);
    expect(e.event).toBe('agent_input_required');
    expect(e.parts.map((p) => p.kind)).toEqual(['text', 'data', 'status']);
  });

  it('agent failed: the error message and code, then the A2A error DataPart', () => {
    const e = answerEnd(answer('failed'), blobs);
    expect(transition('running', e.event)).toMatchObject({ to: 'failed', reason: 'agent_error' });
    expect(e.phase?.state).toBe('failed');
    expect(e.parts[0]).toMatchObject({ kind: 'error', code: 'NOT_FOUND' });
    expect(e.parts[1]).toMatchObject({ kind: 'data', data: { errorReason: 'order_not_found' } });
  });

  it('canceled by the runtime: runtime_cancelled', () => {
    const e = answerEnd(answer('canceled'), blobs);
    expect(transition('running', e.event)).toMatchObject({ to: 'cancelled', reason: 'runtime_cancelled' });
    expect(e.parts).toEqual([{ kind: 'status', status: 'cancelled', reason: 'runtime_cancelled' }]);
  });

  it('keeps streamed text, marked partial, when a run is stopped before its answer', () => {
    expect(cancelEnd('Hel').parts).toEqual([
      { kind: 'status', status: 'cancelled', reason: 'user_cancelled' },
      { kind: 'text', text: 'Hel', partial: true },
    ]);
    expect(restartEnd('').parts).toEqual([{ kind: 'status', status: 'interrupted', reason: 'runtime_restarted' }]);
    expect(restartEnd('').closeStream).toBe(true);
  });

  it('project validation: one diagnostic event each and a count in the phase', () => {
    const e = validationEnd([{ file: 'agent.yaml', message: 'bad' }]);
    expect(e.diagnostics).toHaveLength(1);
    expect(e.phase).toEqual({ name: 'prepare', state: 'failed', detail: { reason: 'project_validation', diagnostics: 1 } });
    expect(e.parts[1]).toEqual({ kind: 'error', message: 'The project did not validate (1 problem); see the diagnostics.' });
  });

  it('runtime unavailable: the recommended run command (spec 6.2), or the start diagnostics', () => {
    const e = unavailableEnd('invoke', unreachable(null));
    expect(e.event).toBe('runtime_unavailable');
    expect(e.detail).toEqual({ recommended_run_command: 'npx agent-studio serve' });
    expect(e.phase?.detail).toEqual({ reason: 'runtime_unavailable', detail: 'port in use' });
    expect(unavailableEnd('prepare', unreachable([{ file: 'a.ts', message: 'x' }])).event).toBe('validation_failed');
  });

  it('a broken stream fails runtime_error with its message', () => {
    expect(streamFailedEnd('socket hang up').parts).toEqual([
      { kind: 'status', status: 'failed', reason: 'runtime_error' },
      { kind: 'error', message: 'socket hang up' },
    ]);
  });
});
