// The studio <-> runtime contract lines: what one process prints the other must read back.
import { describe, expect, it } from 'vitest';
import {
  CAPTURE_BATCH_MS,
  captureOf,
  captureTokenOf,
  MAX_CAPTURE_BATCH_MS,
  formatDiagnosticsLine,
  formatReadyLine,
  parseDiagnosticsLine,
  parseReadyLine,
  RUNTIME_PATHS,
  RuntimeSchemas,
  StrictRuntimeSchemas,
} from './runtime-contract.ts';

describe('runtime contract lines', () => {
  it('reads the URL back from the ready line, and nothing from other lines', () => {
    expect(parseReadyLine(formatReadyLine('support-desk', 'http://127.0.0.1:43123/'))).toBe('http://127.0.0.1:43123/');
    expect(parseReadyLine(`${formatReadyLine('a b', 'http://[::1]:8080/')}\r`)).toBe('http://[::1]:8080/');
    expect(parseReadyLine('{"level":30,"msg":"ready at http://x/"}')).toBeNull();
    expect(parseReadyLine('runtime starting')).toBeNull();
  });

  it('round-trips diagnostics, and ignores lines that only look like them', () => {
    const diagnostics = [
      { file: 'src/graph.ts', line: 3, column: 7, message: "Expected ';'" },
      { file: 'agent.json', field: 'skills', message: 'must be an array' },
    ];
    expect(parseDiagnosticsLine(formatDiagnosticsLine(diagnostics))).toEqual(diagnostics);
    expect(parseDiagnosticsLine('agent-studio:diagnostics {not json')).toBeNull();
    expect(parseDiagnosticsLine('agent-studio:diagnostics {"diagnostics":[{"file":1}]}')).toEqual([]);
    expect(parseDiagnosticsLine('the project at x is not valid:')).toBeNull();
  });
});

describe('runtime contract schemas', () => {
  const meta = {
    agent: 'a',
    generation: 1,
    loaded_at: 't',
    exit_node: 'n',
    components: [{ kind: 'prompt', name: 'p', file: 'f', hash: 'h', version: 1 }],
    input_contracts: [],
    run_options: [{ name: 'scriptedChunks', type: 'integer', default: 6, min: 1 }],
  };

  it('replies are read leniently: a key added on one side is dropped, not refused', () => {
    const reply = { success: true, data: { ...meta, components: [{ ...meta.components[0], extra: 1 }], later: 'x' }, error: null };
    expect(RuntimeSchemas.MetadataReply.parse(reply).data).toEqual(meta);
    // A runtime older than run options declares none.
    const { run_options: _runOptions, ...older } = meta;
    expect(RuntimeSchemas.MetadataReply.parse({ success: true, data: older, error: null }).data.run_options).toEqual([]);
  });

  it('the strict schemas refuse a key one side added, at any depth', () => {
    expect(StrictRuntimeSchemas.MetadataReply.safeParse({ success: true, data: meta, error: null }).success).toBe(true);
    expect(StrictRuntimeSchemas.MetadataReply.safeParse({ success: true, data: { ...meta, later: 'x' }, error: null }).success).toBe(false);
    expect(
      StrictRuntimeSchemas.MetadataReply.safeParse({ success: true, data: { ...meta, components: [{ ...meta.components[0], extra: 1 }] }, error: null })
        .success,
    ).toBe(false);
  });

  it('both refuse a renamed or retyped field', () => {
    const { exit_node: _exitNode, ...renamed } = meta;
    expect(RuntimeSchemas.RegistryMetadata.safeParse({ ...renamed, exitNode: 'n' }).success).toBe(false);
    expect(RuntimeSchemas.ReloadFailure.safeParse({ code: 'OTHER', message: 'm', generation: 1, diagnostics: [] }).success).toBe(false);
  });

  it('a capture body is a request: read strictly, trace events keep their own fields', () => {
    const body = { capture_token: 't', events: [{ name: 'invoke.end', ts: '2026-01-01T00:00:00Z', latency: { total: 3 } }] };
    expect(StrictRuntimeSchemas.CaptureBody.parse(body)).toEqual(body);
    expect(StrictRuntimeSchemas.CaptureBody.safeParse({ ...body, more: 1 }).success).toBe(false);
    expect(StrictRuntimeSchemas.CaptureBody.safeParse({ capture_token: '', events: [] }).success).toBe(false);
  });

  it('the paths the studio calls are relative to the runtime base URL', () => {
    expect(RUNTIME_PATHS).toEqual({
      reload: 'api/v1/registry/reload',
      metadata: 'api/v1/registry/metadata',
      agentCard: '.well-known/agent-card.json',
      health: 'healthz',
      liveness: 'livez',
      graph: 'graph',
      status: 'api/v1/status',
    });
  });

  it('the capture key names its token as {capture_token} or the token alone, anything else names none', () => {
    expect(captureTokenOf({ capture_token: 'tok', note: 1 })).toBe('tok');
    expect(captureTokenOf('tok')).toBe('tok');
    expect(captureTokenOf({ capture_token: 3 })).toBeNull();
    expect(captureTokenOf(undefined)).toBeNull();
  });

  it("the capture key's batch_ms asks for a longer hold of the run's events, brought within its bounds (D-111)", () => {
    expect(captureOf({ capture_token: 'tok', batch_ms: 250 })).toEqual({ token: 'tok', batchMs: 250 });
    expect(captureOf({ capture_token: 'tok' })).toEqual({ token: 'tok', batchMs: CAPTURE_BATCH_MS });
    expect(captureOf('tok')).toEqual({ token: 'tok', batchMs: CAPTURE_BATCH_MS });
    expect(captureOf({ capture_token: 'tok', batch_ms: 1 })?.batchMs).toBe(CAPTURE_BATCH_MS);
    expect(captureOf({ capture_token: 'tok', batch_ms: 60_000 })?.batchMs).toBe(MAX_CAPTURE_BATCH_MS);
    expect(captureOf({ capture_token: 'tok', batch_ms: '250' })?.batchMs).toBe(CAPTURE_BATCH_MS);
    expect(captureOf({ capture_token: 'tok', batch_ms: Number.NaN })?.batchMs).toBe(CAPTURE_BATCH_MS);
    expect(captureOf({ batch_ms: 250 })).toBeNull();
  });
});
