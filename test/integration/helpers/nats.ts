// A private nats-server with JetStream for a test (its own port and store folder), so a test
// can stop and restart it without touching the machine's NATS.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { tempDir } from './runtime.ts';

export const NATS_SERVER = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

export interface TestNats {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A nats-server on a free loopback port; `config` (nats-server's config syntax, e.g. an
 * `authorization` block or `tls`) is written to a file it reads. */
export async function startNats(opts: { config?: string } = {}): Promise<TestNats> {
  if (!fs.existsSync(NATS_SERVER)) throw new Error(`the NATS tests need nats-server at ${NATS_SERVER} (apt-get install nats-server, or set NATS_SERVER_BIN)`);
  const port = await freePort();
  const dir = tempDir('nats');
  let child: ChildProcess | null = null;
  const nats: TestNats = {
    url: `nats://127.0.0.1:${port}`,
    port,
    async start() {
      const conf = opts.config === undefined ? [] : ['-c', path.join(dir, 'nats.conf')];
      if (opts.config !== undefined) fs.writeFileSync(conf[1], opts.config);
      child = spawn(NATS_SERVER, [...conf, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + String(d)).slice(-2000)));
      for (let i = 0; i < 100 && !(await listening(port)); i++) await new Promise((r) => setTimeout(r, 50));
      if (!(await listening(port))) throw new Error(`nats-server did not listen on ${port}: ${stderr}`);
    },
    async stop() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      await new Promise((r) => {
        c.once('exit', r);
        c.kill('SIGTERM');
      });
    },
  };
  await nats.start();
  return nats;
}
