// The price table and the price of one model call (docs/runtime-traces.md, "Tokens and
// cost"; D-95). No boundary of its own: the runtime prices each `model.call` with it (and
// checks a cost budget), the manifest's `pricing` is validated with its schema, and the
// studio shows the documented defaults. Prices are US dollars per million tokens.
import { z } from 'zod';

/** A model's prices, USD per 1,000,000 tokens. `cachedInput`: prompt tokens read from the
 * provider's cache (default: the input price); `cacheWrite`: prompt tokens written to it
 * (Anthropic; default: the input price). */
export const ModelPriceSchema = z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
  cachedInput: z.number().min(0).optional(),
  cacheWrite: z.number().min(0).optional(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

/** The manifest's `pricing`: model name (or a name's prefix, below) → its prices. */
export const PricingSchema = z.record(z.string().min(1).max(200), ModelPriceSchema);
export type Pricing = z.infer<typeof PricingSchema>;

/** When the default prices were read from the providers' public price lists. */
export const DEFAULT_PRICES_AS_OF = '2025-11-01';

/** List prices of common models (standard tier, prompts up to 200k tokens) as of
 * DEFAULT_PRICES_AS_OF. A project's `pricing` adds models and overrides these. */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  // OpenAI
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  // Anthropic (cache writes: the 5-minute cache)
  'claude-opus-4-5': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-opus-4-1': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
  'claude-opus-4': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
  'claude-sonnet-4-5': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-sonnet-4': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-3-7-sonnet': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-haiku-4-5': { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
  'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4 },
  // Google Gemini (prompts up to 200k tokens)
  'gemini-2.5-pro': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gemini-2.5-flash': { input: 0.3, cachedInput: 0.03, output: 2.5 },
  'gemini-2.5-flash-lite': { input: 0.1, cachedInput: 0.01, output: 0.4 },
  'gemini-2.0-flash': { input: 0.1, cachedInput: 0.025, output: 0.4 },
};

export interface CallUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
}

/** The table a runtime prices with: the defaults, then the project's entries over them. */
export interface PriceTable {
  project: Readonly<Record<string, ModelPrice>>;
  defaults: Readonly<Record<string, ModelPrice>>;
}

export function priceTable(project: Pricing | undefined): PriceTable {
  return { project: project ?? {}, defaults: DEFAULT_PRICES };
}

export interface PriceMatch {
  /** The table entry used. */
  key: string;
  source: 'project' | 'default';
  price: ModelPrice;
}

/** `models/gemini-2.5-flash` → `gemini-2.5-flash`; lower case. */
function normalise(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/^models\//, '');
}

/** The exact entry for `model`, else the longest entry it starts with followed by `-`, `@`
 * or `:` (a dated or versioned name: `gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`). */
function lookup(entries: Readonly<Record<string, ModelPrice>>, model: string, exact: boolean): [string, ModelPrice, number] | null {
  let best: [string, ModelPrice, number] | null = null;
  for (const [key, price] of Object.entries(entries)) {
    const k = normalise(key);
    if (exact) {
      if (k === model) return [key, price, k.length];
    } else if (model.startsWith(k) && /[-@:]/.test(model[k.length] ?? '') && (!best || k.length > best[2])) best = [key, price, k.length];
  }
  return best;
}

/** The entry that prices `model`: an exact name (the project's, then the defaults'), else the
 * longest prefix in either table (the project's on a tie); null for a model neither knows. */
export function findPrice(table: PriceTable, model: string | null | undefined): PriceMatch | null {
  if (!model) return null;
  const m = normalise(model);
  const pick = (hit: [string, ModelPrice, number] | null, source: PriceMatch['source']): PriceMatch | null =>
    hit ? { key: hit[0], source, price: hit[1] } : null;
  const exact = pick(lookup(table.project, m, true), 'project') ?? pick(lookup(table.defaults, m, true), 'default');
  if (exact) return exact;
  const own = lookup(table.project, m, false);
  const dflt = lookup(table.defaults, m, false);
  return own && (!dflt || own[2] >= dflt[2]) ? pick(own, 'project') : pick(dflt, 'default');
}

/** Cost in USD of one call's tokens. `input_tokens` counts every prompt token, cached ones
 * included (as LangChain reports them for OpenAI, Anthropic and Gemini): the cached reads and
 * cache writes are taken out of it and priced at their own rates. */
export function callCost(price: ModelPrice, u: CallUsage): number {
  const cached = Math.max(0, u.cache_read_tokens);
  const written = Math.max(0, u.cache_creation_tokens);
  const plain = Math.max(0, u.input_tokens - cached - written);
  const usd =
    plain * price.input +
    cached * (price.cachedInput ?? price.input) +
    written * (price.cacheWrite ?? price.input) +
    Math.max(0, u.output_tokens) * price.output;
  return roundUsd(usd / 1_000_000);
}

/** Dollars kept to 10 decimal places: sums of many calls stay exact enough and print cleanly. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e10) / 1e10;
}

/** A call's price: the response's model name first (it is what was billed), else the
 * requested one. `cost_usd` is null, never 0, when the table has no price for the model. */
export function priceCall(
  table: PriceTable,
  call: { request_model: string | null; response_model: string | null; usage: CallUsage | null },
): { cost_usd: number | null; priced_as: string | null; price_source: 'project' | 'default' | null } {
  if (!call.usage) return { cost_usd: null, priced_as: null, price_source: null };
  const match = findPrice(table, call.response_model) ?? findPrice(table, call.request_model);
  if (!match) return { cost_usd: null, priced_as: null, price_source: null };
  return { cost_usd: callCost(match.price, call.usage), priced_as: match.key, price_source: match.source };
}
