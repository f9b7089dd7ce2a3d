import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from './config.ts';

function project(envFile: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
  fs.writeFileSync(path.join(dir, '.env'), envFile);
  return dir;
}

describe('runtime settings', () => {
  it('reads the project .env and lets the process environment win', () => {
    const dir = project('AGENT_ID=from-file\nA2A_HISTORY_MAX_MESSAGES=7\nSTAGE_TIMING=true\n# comment\nPUBLIC_AGENT_URL=https://a.example.com/x\n');
    const s = loadSettings(dir, { AGENT_ID: 'from-process' });
    expect(s.agentId).toBe('from-process');
    expect(s.historyMaxMessages).toBe(7);
    expect(s.stageTiming).toBe(true);
    expect(s.publicAgentUrl).toBe('https://a.example.com/x');
    expect(s.maxHistoryTokens).toBeNull();
    expect(s.fanoutMaxConcurrency).toBe(4);
  });

  it('defaults history to 50 and works with no .env at all', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
    const s = loadSettings(dir, {});
    expect(s.historyMaxMessages).toBe(50);
    expect(s.agentId).toBe('');
  });

  it('names the setting that is wrong', () => {
    const dir = project('DEFAULT_FANOUT_MAX_CONCURRENCY=zero\n');
    expect(() => loadSettings(dir, {})).toThrow(SettingsError);
    expect(() => loadSettings(dir, {})).toThrow(/DEFAULT_FANOUT_MAX_CONCURRENCY/);
    expect(() => loadSettings(dir, { DEFAULT_FANOUT_MAX_CONCURRENCY: '2', PUBLIC_AGENT_URL: 'ftp://x' })).toThrow(/PUBLIC_AGENT_URL/);
  });

  it('SHUTDOWN_GRACE_MS: 25000 by default, 0 allowed, anything but an integer >= 0 named', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
    expect(loadSettings(dir, {}).shutdownGraceMs).toBe(25_000);
    expect(loadSettings(dir, { SHUTDOWN_GRACE_MS: '0' }).shutdownGraceMs).toBe(0);
    expect(loadSettings(project('SHUTDOWN_GRACE_MS=5000\n'), {}).shutdownGraceMs).toBe(5000);
    for (const bad of ['-1', '2.5', '30s']) expect(() => loadSettings(dir, { SHUTDOWN_GRACE_MS: bad })).toThrow(/SHUTDOWN_GRACE_MS must be an integer >= 0/);
  });

  it('trace sinks: the log by default, NATS when listed, an unknown sink named', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
    expect(loadSettings(dir, {})).toMatchObject({ traceLog: true, traceNats: null });
    expect(loadSettings(dir, { TRACE_SINKS: 'log, nats', NATS_URL: 'nats://n:4222' })).toMatchObject({
      traceLog: true,
      traceNats: {
        servers: 'nats://n:4222',
        prefix: 'agent-studio.traces',
        stream: 'AGENT_TRACES',
        bufferMax: 10_000,
        limits: { maxAgeSeconds: 604_800, maxBytes: 1024 ** 3, maxMsgs: -1 },
      },
    });
    expect(loadSettings(dir, { TRACE_SINKS: 'nats' }).traceLog).toBe(false);
    expect(() => loadSettings(dir, { TRACE_SINKS: 'log,kafka' })).toThrow(
      new SettingsError('TRACE_SINKS lists unknown sink(s) kafka: use log, nats and/or otlp'),
    );
    const otlp = (env: Record<string, string>) => loadSettings(dir, { TRACE_SINKS: 'otlp', ...env }).traceOtlp;
    expect(otlp({})).toMatchObject({
      endpoint: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      bufferMax: 10_000,
      sampler: 'parentbased_always_on',
    });
    expect(otlp({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp/' })?.endpoint).toBe('https://c.example/otlp/v1/traces');
    expect(otlp({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom', OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=x%20y' })).toMatchObject({
      endpoint: 'http://c:4318/custom',
      headers: { a: '1', b: 'x y' },
    });
    expect(() => otlp({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      "OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (gRPC is not supported), got 'grpc'",
    );
    expect(() => otlp({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/);
    expect(() => otlp({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/);
    expect(() => otlp({ OTEL_EXPORTER_OTLP_HEADERS: 'novalue' })).toThrow(/OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs/);
    expect(() => loadSettings(dir, { MODEL_PROVIDER: 'anthropic' })).toThrow(
      new SettingsError('MODEL_PROVIDER=anthropic needs ANTHROPIC_API_KEY and ANTHROPIC_MODEL set'),
    );
    expect(() => loadSettings(dir, { MODEL_PROVIDER: 'mistral' })).toThrow(/MODEL_PROVIDER must be one of openai, anthropic, gemini, scripted/);
    expect(loadSettings(dir, { MODEL_PROVIDER: 'gemini', GOOGLE_API_KEY: 'k', GEMINI_MODEL: 'gemini-2.5-flash' }).modelProvider).toEqual({
      provider: 'gemini',
      model: 'gemini-2.5-flash',
      baseUrl: null,
    });
    expect(loadSettings(dir, {}).modelProvider.provider).toBe('scripted');
    expect(() => loadSettings(dir, { TRACE_SINKS: 'nats', TRACE_NATS_PREFIX: 'a.*' })).toThrow(/TRACE_NATS_PREFIX must be dot-separated tokens/);
  });
});
