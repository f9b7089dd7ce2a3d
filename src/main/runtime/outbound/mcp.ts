// The project's MCP servers (spec 4.2 status.mcp): connected at start over stdio or
// streamable HTTP with the official SDK; their tools are offered to the graph.
import { recordedCall } from './recording.ts';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Logger } from 'pino';
import type { Manifest } from '../project/manifest.ts';
import type { McpToolHandle } from '../../../sdk/index.ts';

type ServerDecl = Manifest['mcpServers'][number];

interface Connection {
  decl: ServerDecl;
  state: 'connecting' | 'connected' | 'failed' | 'closed';
  client: Client | null;
  tools: { name: string; description?: string }[];
  error?: string;
}

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  state: Connection['state'];
  tools: number;
  tool_names: string[];
  error?: string;
}

export class McpManager {
  private connections: Connection[] = [];

  constructor(
    private readonly projectDir: string,
    private readonly env: Record<string, string>,
    private readonly log: Logger,
    /** The outbound pool's fetch for servers over streamable HTTP. */
    private readonly fetch?: (input: string | URL, init?: RequestInit) => Promise<Response>,
  ) {}

  /** Connects every declared server; a server that fails is reported, not fatal. */
  async connect(servers: ServerDecl[]): Promise<void> {
    await this.close();
    this.connections = servers.map((decl) => ({ decl, state: 'connecting', client: null, tools: [] }));
    await Promise.all(this.connections.map((c) => this.open(c)));
  }

  private async open(conn: Connection): Promise<void> {
    const { decl } = conn;
    const client = new Client({ name: 'agent-studio-runtime', version: '0.1.0' });
    try {
      const transport =
        decl.transport === 'stdio'
          ? new StdioClientTransport({
              command: decl.command,
              args: decl.args,
              cwd: path.resolve(this.projectDir, decl.cwd ?? '.'),
              env: { ...(this.env as Record<string, string>), ...decl.env },
              stderr: 'ignore',
            })
          : new StreamableHTTPClientTransport(new URL(decl.url), { requestInit: { headers: decl.headers }, ...(this.fetch ? { fetch: this.fetch } : {}) });
      await client.connect(transport, { timeout: 10_000 });
      const listed = await client.listTools(undefined, { timeout: 10_000 });
      conn.client = client;
      conn.tools = listed.tools.map((t) => ({ name: t.name, description: t.description }));
      conn.state = 'connected';
    } catch (err) {
      conn.state = 'failed';
      conn.error = (err as Error).message;
      this.log.warn({ server: decl.name, err: conn.error }, 'MCP server unavailable');
      await client.close().catch(() => undefined);
    }
  }

  status(): { servers: McpServerStatus[]; connected: number; total: number } {
    const servers = this.connections.map((c) => ({
      name: c.decl.name,
      transport: c.decl.transport,
      state: c.state,
      tools: c.tools.length,
      tool_names: c.tools.map((t) => t.name),
      ...(c.error ? { error: c.error } : {}),
    }));
    return { servers, connected: servers.filter((s) => s.state === 'connected').length, total: servers.length };
  }

  async tools(): Promise<McpToolHandle[]> {
    return this.connections
      .filter((c) => c.state === 'connected' && c.client)
      .flatMap((c) =>
        c.tools.map((t) => ({
          server: c.decl.name,
          name: t.name,
          description: t.description,
          // Recorded in a recording run, answered from the recording in a replay (recording.ts).
          call: (args: Record<string, unknown>) =>
            recordedCall('mcp', { server: c.decl.name, tool: t.name, args }, async () => {
              const result = await c.client!.callTool({ name: t.name, arguments: args });
              if (result.isError) throw new Error(`MCP tool ${c.decl.name}/${t.name} failed: ${JSON.stringify(result.content)}`);
              return result.structuredContent ?? result.content;
            }),
        })),
      );
  }

  async close(): Promise<void> {
    const open = this.connections.filter((c) => c.client);
    this.connections = [];
    await Promise.all(open.map((c) => c.client!.close().catch(() => undefined)));
  }
}
