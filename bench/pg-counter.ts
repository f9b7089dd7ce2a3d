// A counting proxy between a server and PostgreSQL, for the cost bench (bench/cost.bench.ts):
// it forwards the bytes untouched and reads the frontend/backend protocol on the way to count
// what a server costs the database. A round trip is one Sync (extended protocol) or one Query
// (simple protocol): what the client waits for. A read round trip runs only SELECTs outside a
// transaction block; a commit is the server going back to idle after a round trip that wrote
// (an autocommitted write, or a COMMIT). Statements are classified by their SQL text (Parse
// and Query carry it; a Bind to a named statement is looked up in what that connection parsed).
// PG_COUNTER_LOG=1 prints each round trip's statements.
import net from 'node:net';

export interface PgCounts {
  roundTrips: number;
  reads: number;
  commits: number;
  /** Round trips that bound an already parsed named statement (no Parse sent). */
  prepared: number;
}

const WRITE = /^\s*(with\b[\s\S]*\b(insert|update|delete)\b|insert|update|delete|commit|end)\b/i;
const NO_READ = /^\s*(begin|start|savepoint|release|rollback|set|commit|end)\b/i;

export class PgCounter {
  readonly counts: PgCounts = { roundTrips: 0, reads: 0, commits: 0, prepared: 0 };
  private server: net.Server | undefined;

  reset(): PgCounts {
    const snapshot = { ...this.counts };
    Object.assign(this.counts, { roundTrips: 0, reads: 0, commits: 0, prepared: 0 });
    return snapshot;
  }

  /** Listens on a free loopback port; resolves to a DSN through it. */
  async listen(dsn: string): Promise<string> {
    const up = new URL(dsn);
    const host = up.hostname;
    const port = Number(up.port || 5432);
    this.server = net.createServer((client) => this.connection(client, host, port));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    up.hostname = '127.0.0.1';
    up.port = String((this.server.address() as net.AddressInfo).port);
    return up.toString();
  }

  close(): void {
    this.server?.close();
  }

  private connection(client: net.Socket, host: string, port: number): void {
    const upstream = net.connect(port, host);
    const named = new Map<string, string>();
    // The statements of the round trip being sent, and whether the server is in a transaction.
    let pending: { sql: string[]; prepared: boolean } = { sql: [], prepared: false };
    const waiting: { sql: string[]; prepared: boolean }[] = [];
    let inTx = false;
    let txWrote = false;
    let started = false;
    let inBuf = Buffer.alloc(0);
    let outBuf = Buffer.alloc(0);
    client.on('data', (d: Buffer) => {
      upstream.write(d);
      inBuf = Buffer.concat([inBuf, d]);
      if (!started) {
        if (inBuf.length < 4) return;
        const len = inBuf.readInt32BE(0);
        if (inBuf.length < len) return;
        inBuf = inBuf.subarray(len);
        started = true;
      }
      while (inBuf.length >= 5) {
        const len = inBuf.readInt32BE(1);
        if (inBuf.length < 1 + len) break;
        const type = String.fromCharCode(inBuf[0]);
        const body = inBuf.subarray(5, 1 + len);
        inBuf = inBuf.subarray(1 + len);
        if (type === 'P') {
          const name = cstr(body, 0);
          const sql = cstr(body, name.length + 1);
          if (name) named.set(name, sql);
          pending.sql.push(sql);
        } else if (type === 'B') {
          const portal = cstr(body, 0);
          const stmt = cstr(body, portal.length + 1);
          if (stmt && !pending.sql.length) {
            pending.prepared = true;
            pending.sql.push(named.get(stmt) ?? '');
          }
        } else if (type === 'Q') {
          pending.sql.push(cstr(body, 0));
          waiting.push(pending);
          pending = { sql: [], prepared: false };
        } else if (type === 'S') {
          waiting.push(pending);
          pending = { sql: [], prepared: false };
        }
      }
    });
    upstream.on('data', (d: Buffer) => {
      client.write(d);
      outBuf = Buffer.concat([outBuf, d]);
      while (outBuf.length >= 5) {
        const len = outBuf.readInt32BE(1);
        if (outBuf.length < 1 + len) break;
        const type = String.fromCharCode(outBuf[0]);
        const status = String.fromCharCode(outBuf[5]);
        outBuf = outBuf.subarray(1 + len);
        if (type !== 'Z') continue;
        const trip = waiting.shift();
        if (!trip) continue; // the ready message after start-up
        this.counts.roundTrips += 1;
        if (process.env.PG_COUNTER_LOG)
          console.log(status, trip.prepared ? '[prep]' : '', trip.sql.map((s) => s.replace(/\s+/g, ' ').slice(0, 110)).join(' | '));
        if (trip.prepared) this.counts.prepared += 1;
        const wrote = trip.sql.some((s) => WRITE.test(s));
        const rolledBack = trip.sql.some((s) => /^\s*rollback\s*;?\s*$/i.test(s));
        if (!inTx && status === 'I' && trip.sql.length && !wrote && trip.sql.every((s) => !NO_READ.test(s))) this.counts.reads += 1;
        if (status === 'I') {
          if ((wrote || txWrote) && !rolledBack) this.counts.commits += 1;
          inTx = false;
          txWrote = false;
        } else {
          inTx = true;
          txWrote ||= wrote;
        }
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  }
}

function cstr(buf: Buffer, at: number): string {
  const zero = buf.indexOf(0, at);
  return buf.toString('utf8', at, zero < 0 ? buf.length : zero);
}
