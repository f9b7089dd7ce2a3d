// An operator who turns LangSmith tracing on (LANGSMITH_TRACING) gets the graph's runs, node
// by node, with the runtime's light run context installed (D-40): here LangSmith's run
// ingestion endpoints are a local server, and the runtime answers the official A2A client.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { waitFor } from './helpers/playground-studio.ts';

const ENV = ['LANGSMITH_TRACING', 'LANGSMITH_ENDPOINT', 'LANGSMITH_API_KEY', 'LANGSMITH_PROJECT'] as const;

describe('LangSmith tracing on, with the light run context', () => {
  let server: http.Server;
  let rt: TestRuntime;
  const bodies: string[] = [];
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (req.method !== 'GET') bodies.push(body);
        // /info unknown: the client falls back to its defaults.
        res.writeHead(req.url?.startsWith('/info') ? 404 : 200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    for (const k of ENV) saved[k] = process.env[k];
    // LangChain reads these from the process environment when a run starts.
    Object.assign(process.env, {
      LANGSMITH_TRACING: 'true',
      LANGSMITH_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      LANGSMITH_API_KEY: 'test-key',
      LANGSMITH_PROJECT: 'agent-studio-test',
    });
    rt = await startTestRuntime();
  });

  afterAll(async () => {
    await rt?.close();
    for (const k of ENV) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('posts the graph run, a run for each node and the runs inside nodes (the model call), and still answers', async () => {
    const res = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as { result: { status: { state: string }; contextId: string } };
    expect(res.result.status.state).toBe('completed');
    // The runs reach LangSmith's endpoints in the background, batched.
    const posted = await waitFor(
      async () => {
        const all = bodies.join('\n');
        // Nodes, and what runs inside them: the respond node's model call. A light context
        // where a tracer is configured would drop the runs inside nodes.
        return ['LangGraph', 'guardrail', 'router', 'skills', 'respond', 'ScriptedChatModel'].every((name) => all.includes(`"name":"${name}"`))
          ? all
          : undefined;
      },
      20_000,
      'the graph, node and model runs posted to LangSmith',
    );
    expect(posted).toContain(res.result.contextId); // the thread id is in the runs' metadata
  });
});
