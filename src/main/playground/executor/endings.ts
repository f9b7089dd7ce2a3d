// How a run ends: each way is an end event of the lifecycle (lifecycle.ts) with the output
// parts and the events written before it. Output parts by final state follow
// docs/playground-api.md ("Tagged parts"); reasons follow "Run states and reasons".
import type { Part } from '@a2a-js/sdk';
import type { PhaseName, PhaseState, TaggedPart } from '../../../shared/playground.ts';
import { a2aToTagged, type StoredBlob } from '../parts.ts';
import type { BlobStore } from '../store/blobs.ts';
import { errorBodyOf } from './a2a.ts';
import { pauseOf } from '../../../shared/breakpoints.ts';
import type { EndEvent } from './lifecycle.ts';
import type { ProjectDiagnostic, RuntimeHandle } from './runtime.ts';
import type { StreamOutcome } from './stream.ts';

export interface RunEnd {
  event: EndEvent;
  parts: TaggedPart[];
  /** Written first, as `diagnostic` events. */
  diagnostics?: ProjectDiagnostic[];
  /** The `run.phase` event of the phase that ended the run, written before the end. */
  phase?: { name: PhaseName; state: PhaseState; detail: Record<string, unknown> };
  /** Extra keys of the `complete` phase event. */
  detail?: Record<string, unknown>;
  /** Blobs the output parts refer to. */
  blobs?: StoredBlob[];
  /** The run's A2A stream is closed once the run ended. */
  closeStream?: boolean;
}

/** The outcome of a stream that reached a final status (spec 3) as the run's end. */
export type Answer = Exclude<StreamOutcome, { kind: 'ended_early' | 'broken' }>;

export function answerEnd(outcome: Answer, blobs: BlobStore): RunEnd {
  const ok = outcome.kind === 'completed' || outcome.kind === 'input_required';
  const phase = { name: 'invoke', state: ok ? 'completed' : 'failed', detail: { a2a_state: outcome.a2aState, chunks: outcome.chunks } } as const;
  switch (outcome.kind) {
    case 'completed': {
      const out = a2aToTagged(outcome.parts, blobs);
      return { event: 'agent_completed', phase, parts: out.parts, blobs: out.blobs };
    }
    case 'input_required': {
      const out = a2aToTagged(outcome.parts, blobs);
      const parts: TaggedPart[] = [...out.parts, { kind: 'status', status: 'input_required' }];
      // A pause at a breakpoint (docs/playground-api.md, "Breakpoints and stepping"): reason `breakpoint`, and where.
      const pause = (outcome.parts ?? []).map((p) => (p.kind === 'data' ? pauseOf(p.data) : null)).find(Boolean);
      if (pause) return { event: 'agent_breakpoint', phase, parts, blobs: out.blobs, detail: { breakpoint: pause } };
      return { event: 'agent_input_required', phase, parts, blobs: out.blobs };
    }
    case 'failed': {
      const body = errorBodyOf(outcome.parts) ?? errorBodyOf(outcome.artifact ?? undefined);
      const text = typeof body?.errorMessage === 'string' ? body.errorMessage : textOf(outcome.parts) || 'The agent failed.';
      const parts: TaggedPart[] = [{ kind: 'error', message: text, ...(typeof body?.errorCode === 'string' ? { code: body.errorCode } : {}) }];
      if (body) parts.push({ kind: 'data', data: body });
      return { event: outcome.a2aState === 'rejected' ? 'agent_rejected' : 'agent_failed', phase, parts };
    }
    case 'canceled':
      return { event: 'agent_cancelled', phase, parts: statusParts('cancelled', 'runtime_cancelled') };
    case 'unsupported': {
      // auth-required or an unknown state: nothing the Playground can continue.
      const state = outcome.a2aState;
      const message = textOf(outcome.parts) || `The agent ended in state '${state}'.`;
      return {
        event: state === 'auth-required' ? 'agent_auth_required' : 'agent_failed',
        phase,
        parts: [...statusParts('failed', state), { kind: 'error', message }],
      };
    }
  }
}

/** The project does not load: its diagnostics, and the run failed `project_validation`. */
export function validationEnd(diagnostics: ProjectDiagnostic[]): RunEnd {
  const n = diagnostics.length;
  const message = `The project did not validate (${n} problem${n === 1 ? '' : 's'}); see the diagnostics.`;
  return {
    event: 'validation_failed',
    diagnostics,
    phase: { name: 'prepare', state: 'failed', detail: { reason: 'project_validation', diagnostics: n } },
    parts: [...statusParts('failed', 'project_validation'), { kind: 'error', message }],
  };
}

/** No ready runtime. One that cannot start because the project does not load says so, with
 * the diagnostics, rather than asking the user to start the runtime by hand. */
export function unavailableEnd(phase: PhaseName, runtime: RuntimeHandle): RunEnd {
  const diagnostics = runtime.startDiagnostics?.();
  if (diagnostics?.length) return validationEnd(diagnostics);
  // spec 6.2: the failed phase carries `recommended_run_command`.
  const command = runtime.recommendedRunCommand();
  const detail = runtime.unavailableDetail();
  const message = `The agent runtime is not reachable${detail ? ` (${detail})` : ''}. To see why, run it yourself: ${command}`;
  return {
    event: 'runtime_unavailable',
    phase: { name: phase, state: 'failed', detail: { reason: 'runtime_unavailable', ...(detail ? { detail } : {}) } },
    parts: [...statusParts('failed', 'runtime_unavailable'), { kind: 'error', message }],
    detail: { recommended_run_command: command },
  };
}

/** The runtime process serving the run died. */
export function restartEnd(streamed: string): RunEnd {
  return {
    event: 'runtime_exited',
    phase: { name: 'invoke', state: 'failed', detail: { reason: 'runtime_restarted' } },
    parts: [...statusParts('interrupted', 'runtime_restarted'), ...partialText(streamed)],
    closeStream: true,
  };
}

/** The runtime broke the stream, or ended it without a final status. */
export function streamFailedEnd(message: string): RunEnd {
  return {
    event: 'stream_failed',
    phase: { name: 'invoke', state: 'failed', detail: { reason: 'runtime_error', message } },
    parts: [...statusParts('failed', 'runtime_error'), { kind: 'error', message }],
  };
}

/** The runtime answered 401 (-32010) to the connection profile's credential (docs/studio-api.md,
 * "Connection profile"): the message says so, never with the credential. */
export const CREDENTIAL_REFUSED_MESSAGE =
  "The runtime refused the connection profile's credential (HTTP 401, Unauthenticated). Check the header and value under Connection " +
  'in the top bar, or clear the profile to call the runtime as the studio.';

export function credentialRefusedEnd(): RunEnd {
  return {
    event: 'stream_failed',
    phase: { name: 'invoke', state: 'failed', detail: { reason: 'runtime_error', error: 'credential_refused', message: CREDENTIAL_REFUSED_MESSAGE } },
    parts: [...statusParts('failed', 'runtime_error'), { kind: 'error', code: 'credential_refused', message: CREDENTIAL_REFUSED_MESSAGE }],
  };
}

export const ENDED_EARLY_MESSAGE = 'The runtime ended the stream without a final status.';

export function cancelEnd(streamed: string): RunEnd {
  return { event: 'cancel', parts: [...statusParts('cancelled', 'user_cancelled'), ...partialText(streamed)] };
}

export function shutdownEnd(streamed: string): RunEnd {
  return { event: 'shutdown', parts: [...statusParts('interrupted', 'studio_shutdown'), ...partialText(streamed)] };
}

/** A fault of the studio itself. */
export function internalEnd(err: unknown): RunEnd {
  return { event: 'internal_error', parts: [{ kind: 'error', message: `The studio failed to run this: ${(err as Error).message}` }] };
}

/** The text a run streamed before it was stopped, marked as not the whole answer. */
function partialText(streamed: string): TaggedPart[] {
  return streamed ? [{ kind: 'text', text: streamed, partial: true }] : [];
}

function statusParts(status: string, reason: string): TaggedPart[] {
  return [{ kind: 'status', status, reason }];
}

function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n');
}
