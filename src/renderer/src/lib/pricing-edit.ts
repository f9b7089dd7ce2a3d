// The project's prices as the Prices dialog edits them (docs/project-format.md, "pricing"):
// read from agent.json's text and written back into it with jsonc-parser's edits, so only the
// `pricing` value changes and the rest of the file keeps its formatting.
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { ModelPriceSchema, PricingSchema, type ModelPrice, type Pricing } from '../../../shared/pricing.ts';

/** One row of the dialog: a model name and its four prices as typed (blank = not set). */
export interface PriceRow {
  model: string;
  input: string;
  output: string;
  cachedInput: string;
  cacheWrite: string;
}

export const PRICE_FIELDS = ['input', 'output', 'cachedInput', 'cacheWrite'] as const;

/** The manifest's `pricing`, or why it cannot be read. */
export function readPricing(manifest: string): { pricing: Pricing } | { error: string } {
  const errors: ParseError[] = [];
  const json = parse(manifest, errors, { allowTrailingComma: false }) as Record<string, unknown> | undefined;
  if (errors.length)
    return { error: `agent.json does not parse (${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}): fix it in the source view first` };
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { error: 'agent.json is not a JSON object' };
  if (json.pricing === undefined) return { pricing: {} };
  const parsed = PricingSchema.safeParse(json.pricing);
  if (!parsed.success) return { error: 'agent.json’s pricing is not valid: fix it in the source view first' };
  return { pricing: parsed.data };
}

const shown = (n: number | undefined) => (n === undefined ? '' : String(n));

export function rowsOf(pricing: Pricing): PriceRow[] {
  return Object.entries(pricing).map(([model, p]) => ({
    model,
    input: shown(p.input),
    output: shown(p.output),
    cachedInput: shown(p.cachedInput),
    cacheWrite: shown(p.cacheWrite),
  }));
}

/** The rows as a `pricing` object, or the first row's problem, said for a person. Rows with
 * no model name and no price are ignored (the dialog's empty new row). */
export function pricingOf(rows: PriceRow[]): { pricing: Pricing } | { error: string } {
  const out: Pricing = {};
  for (const r of rows) {
    const model = r.model.trim();
    const blank = PRICE_FIELDS.every((f) => r[f].trim() === '');
    if (!model && blank) continue;
    if (!model) return { error: 'Every price needs its model’s name' };
    if (model in out) return { error: `${model} is listed twice` };
    const price: Record<string, number> = {};
    for (const f of PRICE_FIELDS) {
      const raw = r[f].trim();
      if (raw === '') continue;
      const n = Number(raw);
      if (!Number.isFinite(n) || n < 0) return { error: `${model}: ${f} must be a number of US dollars, 0 or more` };
      price[f] = n;
    }
    const parsed = ModelPriceSchema.safeParse(price);
    if (!parsed.success) return { error: `${model}: the input and output prices are required` };
    out[model] = parsed.data satisfies ModelPrice;
  }
  return { pricing: out };
}

/** agent.json's text with `pricing` set (removed when empty), the rest as it was. */
export function writePricing(manifest: string, pricing: Pricing): string {
  const indent = /\n([ \t]+)"/.exec(manifest)?.[1] ?? '  ';
  const value = Object.keys(pricing).length ? pricing : undefined;
  const edits = modify(manifest, ['pricing'], value, {
    formattingOptions: {
      insertSpaces: !indent.includes('\t'),
      tabSize: indent.includes('\t') ? 1 : indent.length,
      eol: manifest.includes('\r\n') ? '\r\n' : '\n',
    },
  });
  return applyEdits(manifest, edits);
}
