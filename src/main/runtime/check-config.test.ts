// `agent-studio runtime --check-config` (docs/deployment.md, "Checking the settings").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsError } from './config.ts';
import { effectiveSettings, formatSettings } from './check-config.ts';

function project(envFile: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chk-'));
  fs.writeFileSync(path.join(dir, '.env'), envFile);
  return dir;
}

describe('the effective settings', () => {
  it('show each value with where it came from, secrets masked', () => {
    const hash = 'a'.repeat(64);
    const dir = project(
      `AGENT_ID=file-agent\nLOG_LEVEL=debug\nOPENAI_API_KEY=sk-live-123456\nA2A_API_KEYS=ci:${hash}\nPOSTGRES_DSN=postgresql://app:hunter2@db:5432/x\n`,
    );
    const rows = effectiveSettings(dir, { AGENT_ID: 'env-agent', NATS_PASSWORD: 'natspw', TRACE_SINKS: 'log,nats', NATS_USER: 'u', PATH: '/bin' });
    const by = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(by.AGENT_ID).toEqual({ name: 'AGENT_ID', value: 'env-agent', source: 'environment' });
    expect(by.LOG_LEVEL).toEqual({ name: 'LOG_LEVEL', value: 'debug', source: '.env' });
    expect(by.SHUTDOWN_GRACE_MS).toEqual({ name: 'SHUTDOWN_GRACE_MS', value: '25000', source: 'default' });
    expect(by.TRACE_NATS_MAX_AGE).toEqual({ name: 'TRACE_NATS_MAX_AGE', value: '7d', source: 'default' });
    expect(by.RETENTION_TASKS_MAX_AGE).toEqual({ name: 'RETENTION_TASKS_MAX_AGE', value: '', source: 'default' });
    expect(by.RETENTION_INTERVAL).toEqual({ name: 'RETENTION_INTERVAL', value: '1h', source: 'default' });
    expect(by.MEMORY_BACKEND).toMatchObject({ value: 'postgres', source: 'default' });
    expect(by.POSTGRES_DSN.value).toBe('postgresql://app:***@db:5432/x');
    expect(by.A2A_API_KEYS.value).toBe(`ci:${'a'.repeat(12)}…`);
    expect(by.OPENAI_API_KEY).toEqual({ name: 'OPENAI_API_KEY', value: '*** (14 chars)', source: '.env' });
    expect(by.NATS_PASSWORD.value).toBe('*** (6 chars)');
    expect(by.PATH).toBeUndefined();
    const text = formatSettings(rows);
    for (const secret of ['hunter2', 'sk-live-123456', 'natspw', hash]) expect(text).not.toContain(secret);
    expect(text).toContain('AGENT_ID=env-agent  # environment\n');
  });

  it('mask the collector headers and provider keys, and show the OpenTelemetry and provider settings', () => {
    const env = {
      TRACE_SINKS: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20tok-999',
      MODEL_PROVIDER: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-ant-777',
      ANTHROPIC_MODEL: 'claude-sonnet-4-5',
    };
    const by = Object.fromEntries(effectiveSettings(project(''), env).map((r) => [r.name, r]));
    expect(by.OTEL_EXPORTER_OTLP_ENDPOINT).toMatchObject({ value: 'http://collector:4318', source: 'environment' });
    expect(by.OTEL_EXPORTER_OTLP_HEADERS.value).toMatch(/^\*\*\* \(\d+ chars\)$/);
    expect(by.ANTHROPIC_API_KEY.value).toBe('*** (10 chars)');
    expect(by.ANTHROPIC_MODEL.value).toBe('claude-sonnet-4-5');
    expect(by.TRACE_OTLP_BUFFER).toMatchObject({ value: '10000', source: 'default' });
  });

  it('a bad setting is the one-line error a start gives', () => {
    expect(() => effectiveSettings(project('LOG_LEVEL=verbose\n'), {})).toThrow(SettingsError);
    expect(() => effectiveSettings(project(''), { PORT: 'eighty' })).toThrow(/PORT must be an integer/);
    expect(() => effectiveSettings(project('RETENTION_TASKS_MAX_AGE=forever\n'), {})).toThrow(/^RETENTION_TASKS_MAX_AGE must be a duration/);
  });
});
