// The studio's handle on the source-analysis worker: one worker per open project, started
// on first use, requests answered in order; a crashed worker is replaced on the next request.
import { Worker } from 'node:worker_threads';
import type { AnalysisQuery, AnalysisResponse } from './worker.ts';
import type { SourceTarget } from './targets.ts';

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class SourceAnalysis {
  private worker: Worker | null = null;
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly projectDir: string) {}

  targets(nodeId: string): Promise<{ targets: SourceTarget[]; nodes: string[] } | null> {
    return this.ask({ op: 'targets', nodeId }) as Promise<{ targets: SourceTarget[]; nodes: string[] } | null>;
  }

  nodeIds(): Promise<string[]> {
    return this.ask({ op: 'nodes' }) as Promise<string[]>;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }

  private ask(req: AnalysisQuery): Promise<unknown> {
    const worker = this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...req, id });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./worker-entry.mjs', import.meta.url), { workerData: { projectDir: this.projectDir } });
    worker.unref();
    worker.on('message', (res: AnalysisResponse) => {
      const p = this.pending.get(res.id);
      if (!p) return;
      this.pending.delete(res.id);
      if (res.ok) p.resolve(res.value);
      else p.reject(new Error(res.error));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the source analysis stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
