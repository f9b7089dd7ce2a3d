// outbound/ owns every call the runtime makes to other servers: the one connection pool
// (here) and the project's MCP servers (mcp.ts).
//
// One outbound connection pool for the runtime (spec 8): the model client, MCP over
// streamable HTTP, calls to other agents and the project's own `ctx.fetch` share one undici
// Agent and at most OUTBOUND_MAX_CONNECTIONS requests in flight (docs/deployment.md,
// "Outbound calls"). A request beyond the limit waits for a slot; a wait longer than the
// call's own timeout (its AbortSignal) or OUTBOUND_QUEUE_TIMEOUT_MS ends it with
// OutboundQueueTimeoutError, which a failure reports as UPSTREAM_TIMEOUT. A slot is held until
// the response body is read to its end (or cancelled): a streamed answer holds its connection.
import { Agent, fetch as undiciFetch } from 'undici';

export class OutboundQueueTimeoutError extends Error {
  override readonly name = 'OutboundQueueTimeoutError';
}

export interface OutboundStatus {
  limit: number;
  in_use: number;
  queued: number;
  requests: number;
  queue_timeouts: number;
}

export type PooledFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export class OutboundPool {
  private readonly agent: Agent;
  private inUse = 0;
  private readonly waiting: { grant: () => void; fail: (err: Error) => void }[] = [];
  private requests = 0;
  private queueTimeouts = 0;

  constructor(
    readonly limit: number,
    private readonly queueTimeoutMs: number,
  ) {
    this.agent = new Agent({ connections: limit, keepAliveTimeout: 10_000 });
  }

  status(): OutboundStatus {
    return { limit: this.limit, in_use: this.inUse, queued: this.waiting.length, requests: this.requests, queue_timeouts: this.queueTimeouts };
  }

  /** A slot, when one is free or frees up before `signal` aborts or the queue timeout. */
  private acquire(signal: AbortSignal | null | undefined, what: string): Promise<void> {
    if (this.inUse < this.limit) {
      this.inUse += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        grant: () => {
          cleanup();
          resolve();
        },
        fail: (err: Error) => {
          cleanup();
          reject(err);
        },
      };
      const timeout = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        this.queueTimeouts += 1;
        entry.fail(
          new OutboundQueueTimeoutError(
            `all ${this.limit} outbound connections stayed busy longer than the call to ${what} may wait (OUTBOUND_MAX_CONNECTIONS)`,
          ),
        );
      };
      const timer = setTimeout(timeout, this.queueTimeoutMs);
      signal?.addEventListener('abort', timeout, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', timeout);
      };
      this.waiting.push(entry);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next)
      next.grant(); // the slot passes on; inUse stays
    else this.inUse -= 1;
  }

  /** fetch through the pool. */
  readonly fetch: PooledFetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    await this.acquire(signal, new URL(url).origin);
    this.requests += 1;
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        this.release();
      }
    };
    try {
      const res = (await undiciFetch(
        input as Parameters<typeof undiciFetch>[0],
        { ...(init as object), dispatcher: this.agent } as Parameters<typeof undiciFetch>[1],
      )) as unknown as Response;
      if (!res.body) {
        release();
        return res;
      }
      // Hold the slot until the body is consumed, cancelled or fails.
      const reader = res.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              release();
              controller.close();
            } else controller.enqueue(value);
          } catch (err) {
            release();
            controller.error(err);
          }
        },
        cancel(reason) {
          release();
          return reader.cancel(reason);
        },
      });
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (err) {
      release();
      throw err;
    }
  };

  async close(): Promise<void> {
    for (const w of this.waiting.splice(0)) w.fail(new Error('the runtime is shutting down'));
    await this.agent.close().catch(() => undefined);
  }
}
