// The runtime's request and invocation counters, shown by GET /api/v1/status (spec 4.2):
// the JSON-RPC gate counts requests by method, the executor counts invocations by outcome.

export interface InvocationCounts {
  invocations: number;
  completed: number;
  failed: number;
  input_required: number;
  canceled: number;
}

export interface RuntimeStats extends InvocationCounts {
  requests: Record<string, number>;
}

export function newRuntimeStats(): RuntimeStats {
  return { invocations: 0, completed: 0, failed: 0, input_required: 0, canceled: 0, requests: {} };
}
