// Direct Playground API calls for e2e set-up and checks (what the UI shows is compared
// with what the API stores).
import type { CreateRunBody, Page, RunAccepted, RunDetail, RunEvent, RunSummary, Session } from '../src/shared/playground.ts';
import { PLAYGROUND_PREFIX } from '../src/shared/playground.ts';

export class StudioApi {
  constructor(readonly base: string) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${this.base}${PLAYGROUND_PREFIX}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async createSession(title?: string): Promise<Session> {
    const r = await this.call('POST', '/sessions', title ? { title } : {});
    if (r.status !== 201) throw new Error(`create session: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  async sessions(): Promise<Session[]> {
    return ((await this.call('GET', '/sessions')).body as Page<Session>).items;
  }

  async runs(sessionId: string): Promise<RunSummary[]> {
    return ((await this.call('GET', `/sessions/${sessionId}/runs`)).body as Page<RunSummary>).items;
  }

  async createRun(sessionId: string, body: CreateRunBody): Promise<{ status: number; body: RunAccepted & { detail?: any } }> {
    return this.call('POST', `/sessions/${sessionId}/runs`, body);
  }

  async run(runId: string): Promise<RunDetail> {
    return (await this.call('GET', `/runs/${runId}`)).body;
  }

  async cancel(runId: string): Promise<void> {
    await this.call('DELETE', `/runs/${runId}`);
  }

  async waitForEnd(runId: string, timeoutMs = 30_000): Promise<RunDetail> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const run = await this.run(runId);
      if (!['queued', 'preparing', 'running'].includes(run.status)) return run;
      if (Date.now() > until) throw new Error(`run ${runId} still ${run.status} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 150));
    }
  }

  /** Every stored event of an ended run (the SSE replay, read to its end). */
  async events(runId: string): Promise<RunEvent[]> {
    const res = await fetch(`${this.base}${PLAYGROUND_PREFIX}/runs/${runId}/events`, { headers: { accept: 'text/event-stream' } });
    const text = await res.text();
    const events: RunEvent[] = [];
    for (const block of text.split(/\n\n/)) {
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) events.push(JSON.parse(data));
    }
    return events;
  }
}
