// Tokens and cost of a run, its nodes and its calls, folded from its `model.call` trace events
// (docs/runtime-traces.md "Model calls"; docs/playground-api.md "Tokens and cost"). Replies of
// GET /runs/{id}/usage and GET /sessions/{id}/usage, and the totals the compare and the
// experiments carry. Pure: the studio folds stored events, the renderer the live stream.
import { z } from 'zod';
import { roundUsd } from './pricing.ts';

/** Sums over some model calls. `cost_usd` is the cost of the priced calls, null when none of
 * the calls with tokens had a price (an unknown model is never counted as free);
 * `unpriced_calls` > 0 says the cost leaves some calls out, `unpriced_models` which models. */
export const UsageTotalsSchema = z.object({
  calls: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  cache_read_tokens: z.number().int(),
  cache_creation_tokens: z.number().int(),
  /** input + output. */
  total_tokens: z.number().int(),
  cost_usd: z.number().nullable(),
  unpriced_calls: z.number().int(),
  unpriced_models: z.array(z.string()),
  /** Calls whose model reported no usage (the offline scripted model). */
  calls_without_usage: z.number().int(),
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

export const CallUsageSchema = z.object({
  span_id: z.string(),
  /** The node span (LangGraph task) that made the call, and the fan-out branch inside it. */
  parent_span_id: z.string().nullable(),
  node: z.string().nullable(),
  branch_span_id: z.string().nullable(),
  branch: z.string().nullable(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  status: z.string(),
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number(), cache_read_tokens: z.number(), cache_creation_tokens: z.number() }).nullable(),
  cost_usd: z.number().nullable(),
  priced_as: z.string().nullable(),
});
export type CallUsage = z.infer<typeof CallUsageSchema>;

/** One node span's (or fan-out branch's) calls; `span_id` null: calls made outside any node. */
export const SpanUsageSchema = UsageTotalsSchema.extend({
  span_id: z.string().nullable(),
  node: z.string().nullable(),
  kind: z.enum(['node', 'branch', 'outside']),
  /** Share of the run's tokens and of its cost (0..1; null when the run has none). */
  token_share: z.number().nullable(),
  cost_share: z.number().nullable(),
});
export type SpanUsage = z.infer<typeof SpanUsageSchema>;

/** GET /runs/{id}/usage. */
export const RunUsageSchema = z.object({
  run_id: z.string(),
  totals: UsageTotalsSchema,
  /** Per node span (each call counted once, under the node that made it: these sum to
   * `totals`), then per fan-out branch (a part of its node's). */
  spans: z.array(SpanUsageSchema),
  calls: z.array(CallUsageSchema),
});
export type RunUsage = z.infer<typeof RunUsageSchema>;

/** GET /sessions/{id}/usage. */
export const SessionUsageSchema = z.object({
  session_id: z.string(),
  totals: UsageTotalsSchema,
  runs: z.array(z.object({ run_id: z.string(), totals: UsageTotalsSchema })),
});
export type SessionUsage = z.infer<typeof SessionUsageSchema>;

/** Right minus left of two totals (the run compare, the experiment compare). */
export const UsageDeltaSchema = z.object({
  left: UsageTotalsSchema.nullable(),
  right: UsageTotalsSchema.nullable(),
  total_tokens_delta: z.number().int().nullable(),
  cost_usd_delta: z.number().nullable(),
});
export type UsageDelta = z.infer<typeof UsageDeltaSchema>;

export function emptyTotals(): UsageTotals {
  return {
    calls: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_creation_tokens: 0,
    total_tokens: 0,
    cost_usd: null,
    unpriced_calls: 0,
    unpriced_models: [],
    calls_without_usage: 0,
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** One `model.call` trace event's fields (its `data`) as a call entry. */
export function callOf(d: Record<string, unknown>): CallUsage {
  const u = d.usage && typeof d.usage === 'object' ? (d.usage as Record<string, unknown>) : null;
  return {
    span_id: str(d.span_id) ?? '',
    parent_span_id: str(d.parent_span_id),
    node: str(d.node),
    branch_span_id: str(d.branch_span_id),
    branch: str(d.branch),
    provider: str(d.provider),
    model: str(d.response_model) ?? str(d.request_model),
    status: str(d.status) ?? 'completed',
    usage: u
      ? {
          input_tokens: num(u.input_tokens),
          output_tokens: num(u.output_tokens),
          cache_read_tokens: num(u.cache_read_tokens),
          cache_creation_tokens: num(u.cache_creation_tokens),
        }
      : null,
    cost_usd: typeof d.cost_usd === 'number' ? d.cost_usd : null,
    priced_as: str(d.priced_as),
  };
}

/** Adds one call to running totals (in place). */
export function addCall(t: UsageTotals, c: CallUsage): void {
  t.calls += 1;
  if (!c.usage) {
    t.calls_without_usage += 1;
    return;
  }
  t.input_tokens += c.usage.input_tokens;
  t.output_tokens += c.usage.output_tokens;
  t.cache_read_tokens += c.usage.cache_read_tokens;
  t.cache_creation_tokens += c.usage.cache_creation_tokens;
  t.total_tokens += c.usage.input_tokens + c.usage.output_tokens;
  if (c.cost_usd === null) {
    t.unpriced_calls += 1;
    const model = c.model ?? '(unnamed model)';
    if (!t.unpriced_models.includes(model)) t.unpriced_models.push(model);
  } else {
    t.cost_usd = roundUsd((t.cost_usd ?? 0) + c.cost_usd);
  }
}

/** Adds totals to running totals (in place): a session's runs, an experiment's cases. */
export function addTotals(t: UsageTotals, o: UsageTotals): void {
  t.calls += o.calls;
  t.input_tokens += o.input_tokens;
  t.output_tokens += o.output_tokens;
  t.cache_read_tokens += o.cache_read_tokens;
  t.cache_creation_tokens += o.cache_creation_tokens;
  t.total_tokens += o.total_tokens;
  if (o.cost_usd !== null) t.cost_usd = roundUsd((t.cost_usd ?? 0) + o.cost_usd);
  t.unpriced_calls += o.unpriced_calls;
  for (const m of o.unpriced_models) if (!t.unpriced_models.includes(m)) t.unpriced_models.push(m);
  t.calls_without_usage += o.calls_without_usage;
}

export function sumTotals(list: readonly UsageTotals[]): UsageTotals {
  const t = emptyTotals();
  for (const o of list) addTotals(t, o);
  return t;
}

export function usageDelta(left: UsageTotals | null, right: UsageTotals | null): UsageDelta {
  return {
    left,
    right,
    total_tokens_delta: left && right ? right.total_tokens - left.total_tokens : null,
    cost_usd_delta: left?.cost_usd != null && right?.cost_usd != null ? roundUsd(right.cost_usd - left.cost_usd) : null,
  };
}

interface TraceLike {
  name: string;
  data: Record<string, unknown>;
}

/** The run's usage from its trace events (any order; only `model.call` is read). */
export function foldUsage(runId: string, traces: Iterable<TraceLike>): RunUsage {
  const totals = emptyTotals();
  const calls: CallUsage[] = [];
  const spans = new Map<string, SpanUsage>();
  const branches = new Map<string, SpanUsage>();
  const entry = (map: Map<string, SpanUsage>, key: string, span_id: string | null, node: string | null, kind: SpanUsage['kind']) => {
    let s = map.get(key);
    if (!s) map.set(key, (s = { ...emptyTotals(), span_id, node, kind, token_share: null, cost_share: null }));
    return s;
  };
  for (const e of traces) {
    if (e.name !== 'model.call') continue;
    const c = callOf(e.data);
    calls.push(c);
    addCall(totals, c);
    addCall(entry(spans, c.parent_span_id ?? '', c.parent_span_id, c.parent_span_id ? c.node : null, c.parent_span_id ? 'node' : 'outside'), c);
    if (c.branch_span_id) addCall(entry(branches, c.branch_span_id, c.branch_span_id, c.branch, 'branch'), c);
  }
  const all = [...spans.values(), ...branches.values()];
  for (const s of all) {
    s.token_share = totals.total_tokens ? s.total_tokens / totals.total_tokens : null;
    s.cost_share = totals.cost_usd ? (s.cost_usd ?? 0) / totals.cost_usd : null;
  }
  return { run_id: runId, totals, spans: all, calls };
}
