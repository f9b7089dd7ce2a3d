// The PostgreSQL half of the cost bench (bench/cost.bench.ts): the runtime on PostgreSQL and
// the hand-wired peer on LangGraph's PostgresSaver (bench/peer-server.ts --postgres), each in
// its own schema of the same database server; what each costs the database per turn, counted
// through a proxy (bench/pg-counter.ts).
import crypto from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { CONCURRENCY, REPO, cpuSeconds, send, start } from './load.ts';
import { EXAMPLE_TEXT as TEXT } from './example.ts';
import { PgCounter, type PgCounts } from './pg-counter.ts';

export const DSN = process.env.POSTGRES_DSN ?? 'postgresql://postgres@127.0.0.1:5432/test';

/** Schemas of one bench run (dropped at its end): other benches and tests share the server. */
export class BenchSchemas {
  private readonly made: string[] = [];
  readonly tag = crypto.randomBytes(3).toString('hex');

  name(label: string): string {
    const schema = `bench_cost_${label}_${this.tag}`;
    this.made.push(schema);
    return schema;
  }

  async drop(): Promise<void> {
    const client = new pg.Client({ connectionString: DSN });
    await client.connect();
    try {
      for (const s of this.made) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    } finally {
      await client.end();
    }
  }
}

export type Durability = 'exit' | 'async';

export const peerPg = (dsn: string, schema: string, durability: Durability) =>
  start([path.join(REPO, 'bin/run-ts.mjs'), 'bench/peer-server.ts', '--postgres', dsn, schema, durability], { SCRIPTED_DELAY_MS: '0', AGENT_ID: 'bench' });

/** `dsn` with its connections named `application` (pg_stat_activity.application_name). */
export const named = (dsn: string, application: string) => `${dsn}${dsn.includes('?') ? '&' : '?'}application_name=${application}`;

export const pgEnv = (dsn: string, schema: string) => ({ MEMORY_BACKEND: 'postgres', POSTGRES_DSN: dsn, POSTGRES_SCHEMA: schema });

export interface TurnCosts {
  warm: PgCounts;
  /** Per request at CONCURRENCY clients, each request a new thread (the throughput rounds' load). */
  loaded: PgCounts & { requests: number };
}

const per = (c: PgCounts, n: number): PgCounts => ({ roundTrips: c.roundTrips / n, reads: c.reads / n, commits: c.commits / n, prepared: c.prepared / n });

/** Starts a server (given a DSN) through a counting proxy and counts: 20 sequential warm turns
 * of one thread (after 3 untimed), then CONCURRENCY clients for `ms`. */
export async function countTurns(startServer: (dsn: string) => ReturnType<typeof start>, ms = 3000): Promise<TurnCosts> {
  const counter = new PgCounter();
  const server = await startServer(await counter.listen(DSN));
  try {
    let contextId: string | undefined;
    for (let i = 0; i < 3; i++) contextId = (await send(server.url, TEXT, contextId)).contextId;
    await settle();
    counter.reset();
    const N = 20;
    for (let i = 0; i < N; i++) contextId = (await send(server.url, TEXT, contextId)).contextId;
    await settle();
    const warm = per(counter.reset(), N);
    let requests = 0;
    const stopAt = Date.now() + ms;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < stopAt) {
          await send(server.url, TEXT);
          requests += 1;
        }
      }),
    );
    await settle();
    return { warm, loaded: { ...per(counter.reset(), requests), requests } };
  } finally {
    server.child.kill('SIGTERM');
    counter.close();
  }
}

/** Past the runtime's group-commit window (end-batch.ts LATER_MS) and a lease beat's odds. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

export const fmtCounts = (c: PgCounts) =>
  `${c.roundTrips.toFixed(1)} round trips (${c.reads.toFixed(1)} reads, ${c.commits.toFixed(2)} commits, ${c.prepared.toFixed(1)} on prepared statements)`;

/** CPU seconds used so far by the database server processes serving connections named
 * `application` (named() in its DSN).
 * The server runs on this machine; a connection opened since the last reading counts whole. */
export async function dbCpuSeconds(application: string): Promise<number> {
  const client = new pg.Client({ connectionString: DSN });
  await client.connect();
  try {
    const r = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [application]);
    return r.rows.reduce((sum, row) => sum + (cpuSeconds(row.pid) ?? 0), 0);
  } finally {
    await client.end();
  }
}
