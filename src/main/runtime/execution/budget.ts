// A turn's model usage: each call of a watched model priced from the generation's price table
// (the defaults under the manifest's `pricing`, D-95) and counted against the manifest's
// optional per-run `budget` (D-94). The usage callback reports each call's end before the node
// goes on (src/sdk/usage.ts), so the call that crosses the budget completes and is recorded,
// then the meter aborts the turn: no further model call starts, and the turn ends `failed`,
// GUARDRAIL_BLOCKED / budget_exceeded.
import { AgentError } from '../../../sdk/errors.ts';
import type { ModelCall } from '../../../sdk/model-call.ts';
import { priceCall, priceTable, roundUsd, type PriceTable } from '../../../shared/pricing.ts';
import type { Budget, Manifest } from '../project/manifest.ts';
import { modelUsage } from '../../../sdk/usage.ts';
import type { InvocationTracer } from '../observability/trace.ts';
import { modelCallFields } from '../observability/trace-value.ts';

/** The fields a call's price adds to its `model.call` event. */
export type CallPrice = ReturnType<typeof priceCall>;

const tables = new WeakMap<Manifest, PriceTable>();

/** One table per loaded manifest (a generation's). */
export function priceTableOf(manifest: Manifest): PriceTable {
  let t = tables.get(manifest);
  if (!t) tables.set(manifest, (t = priceTable(manifest.pricing)));
  return t;
}

export class RunMeter {
  tokens = 0;
  costUsd = 0;
  /** Set once the run went over its budget: the failure the turn ends with. */
  exceeded: AgentError | null = null;
  private controller: AbortController | undefined;

  /** Aborted with `exceeded`; the graph of a run with a budget runs under it (with the turn's
   * own signal). Made when first asked for: a run without a budget never is (D-114). */
  get stop(): AbortController {
    return (this.controller ??= new AbortController());
  }

  constructor(
    private readonly table: PriceTable,
    readonly budget: Budget | undefined,
  ) {}

  /** Prices a finished call and counts it; crossing the budget aborts the turn. */
  add(call: ModelCall): CallPrice {
    const price = priceCall(this.table, call);
    if (call.usage) {
      this.tokens += call.usage.input_tokens + call.usage.output_tokens;
      if (price.cost_usd !== null) this.costUsd = roundUsd(this.costUsd + price.cost_usd);
    }
    if (this.budget && !this.exceeded) this.check(call, price);
    return price;
  }

  private check(call: ModelCall, price: CallPrice): void {
    const b = this.budget!;
    const used = { tokens: this.tokens, cost_usd: this.costUsd };
    const where = { node: call.node, model: call.response_model ?? call.request_model };
    if (b.maxTokens !== undefined && this.tokens > b.maxTokens) {
      this.fail(
        'budget_exceeded',
        `The run used ${this.tokens} tokens, over its budget of ${b.maxTokens} (agent.json budget.maxTokens); no further model call was made.`,
        { budget: b, used, ...where },
      );
    } else if (b.maxCostUsd !== undefined && call.usage && price.cost_usd === null) {
      // A cost budget cannot be kept with a call it cannot price: stop rather than spend unseen.
      this.fail(
        'budget_exceeded',
        `The run has a cost budget (agent.json budget.maxCostUsd) but model '${where.model ?? '?'}' has no price: add it to agent.json pricing; no further model call was made.`,
        { budget: b, used, unpriced_model: where.model, ...where },
      );
    } else if (b.maxCostUsd !== undefined && this.costUsd > b.maxCostUsd) {
      this.fail(
        'budget_exceeded',
        `The run cost $${this.costUsd}, over its budget of $${b.maxCostUsd} (agent.json budget.maxCostUsd); no further model call was made.`,
        { budget: b, used, ...where },
      );
    }
  }

  /** The turn's tokens and cost on `invoke.end`, when its model calls were counted. */
  endFields(): { usage?: { tokens: number; cost_usd: number } } {
    return this.tokens ? { usage: { tokens: this.tokens, cost_usd: this.costUsd } } : {};
  }

  private fail(reason: string, message: string, detail: Record<string, unknown>): void {
    this.exceeded = new AgentError({ code: 'GUARDRAIL_BLOCKED', reason, message, retriable: false, detail });
    this.stop.abort(this.exceeded);
  }
}

/** Watches the thread's model calls while the turn runs, only when someone keeps `model.call`
 * or the manifest sets a budget: each call priced, counted, and traced with its price. */
export function watchModelCalls(manifest: Manifest, contextId: string, tracer: InvocationTracer, content: boolean): { meter: RunMeter; unwatch: () => void } {
  const meter = new RunMeter(priceTableOf(manifest), manifest.budget);
  const traced = tracer.wants('model.call');
  if (!traced && !manifest.budget) return { meter, unwatch: () => {} };
  const unwatch = modelUsage().watch(contextId, {
    content,
    stopped: () => meter.exceeded !== null,
    onCall: (c) => {
      const price = meter.add(c);
      if (traced) tracer.emit('model.call', { ...modelCallFields(c), ...price });
    },
  });
  return { meter, unwatch };
}
