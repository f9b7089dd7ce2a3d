// Settings of the OpenTelemetry trace sink (TRACE_SINKS=otlp; docs/runtime-traces.md,
// "OpenTelemetry"): the standard OTEL_* variables of the OpenTelemetry specification
// (endpoint, headers, protocol, timeout, sampler, service name), read from the runtime's
// merged environment (process, then the project's .env) and checked at start, plus
// TRACE_OTLP_BUFFER. Headers (credentials, often) are kept for the exporter only: the
// status and --check-config never show them.
import { SettingsError } from '../settings-error.ts';

export type OtlpProtocol = 'http/protobuf' | 'http/json';
export type OtlpSamplerName = 'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

export interface OtlpSettings {
  /** The full traces URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces). */
  endpoint: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Ended spans kept while the collector is slow or down (TRACE_OTLP_BUFFER, 10000). */
  bufferMax: number;
  sampler: OtlpSamplerName;
  /** OTEL_TRACES_SAMPLER_ARG for the ratio samplers (1). */
  ratio: number;
  serviceName: string;
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];
export const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318/v1/traces';

const get = (env: Record<string, string>, name: string) => env[name]?.trim() || undefined;

function httpUrl(raw: string, name: string): string {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    return u.href;
  } catch {
    throw new SettingsError(`${name} must be an http(s) URL such as http://collector:4318, got '${raw}'`);
  }
}

/** `key=value,key2=value2` (values URL-encoded), as the OpenTelemetry specification writes them. */
function headerList(raw: string | undefined, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of (raw ?? '').split(',')) {
    if (!item.trim()) continue;
    const at = item.indexOf('=');
    const key = at > 0 ? item.slice(0, at).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key))
      throw new SettingsError(`${name} must be key=value pairs separated by commas (the first bad one is item ${Object.keys(out).length + 1})`);
    try {
      out[key.toLowerCase()] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new SettingsError(`${name}: the value of '${key}' is not valid URL-encoding`);
    }
  }
  return out;
}

export function otlpSettings(env: Record<string, string>, agentId: string): OtlpSettings {
  const signal = get(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = get(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const endpoint = signal
    ? httpUrl(signal, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
    : base
      ? httpUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT').replace(/\/?$/, '/v1/traces')
      : DEFAULT_OTLP_ENDPOINT;
  const protocolName = get(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (get(env, protocolName) ?? 'http/protobuf').toLowerCase();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json')
    throw new SettingsError(`${protocolName} must be http/protobuf or http/json (gRPC is not supported), got '${env[protocolName]}'`);
  const timeoutName = get(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ? 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT' : 'OTEL_EXPORTER_OTLP_TIMEOUT';
  const sampler = (get(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  if (!SAMPLERS.includes(sampler)) throw new SettingsError(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got '${env.OTEL_TRACES_SAMPLER}'`);
  const ratioRaw = get(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = ratioRaw === undefined ? 1 : Number(ratioRaw);
  if (!(ratio >= 0 && ratio <= 1)) throw new SettingsError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got '${ratioRaw}'`);
  return {
    endpoint,
    protocol,
    headers: {
      ...headerList(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...headerList(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    timeoutMs: positive(env, timeoutName, 10_000),
    bufferMax: positive(env, 'TRACE_OTLP_BUFFER', 10_000),
    sampler: sampler as OtlpSamplerName,
    ratio,
    serviceName: get(env, 'OTEL_SERVICE_NAME') ?? (agentId || 'agent-runtime'),
  };
}

function positive(env: Record<string, string>, name: string, fallback: number): number {
  const raw = get(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new SettingsError(`${name} must be a positive integer, got '${raw}'`);
  return n;
}

/** The endpoint as the status shows it: no user info, no query (either may hold a credential). */
export function shownEndpoint(endpoint: string): string {
  const u = new URL(endpoint);
  u.username = '';
  u.password = '';
  u.search = '';
  return u.href;
}

/** TRACE_MODEL_CONTENT, or the OpenTelemetry GenAI switch OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT:
 * model-call events carry the prompts and completions (off by default). */
export function traceModelContent(env: Record<string, string>): boolean {
  return /^(1|true|yes|on)$/i.test(env.TRACE_MODEL_CONTENT ?? env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '');
}
