// The source analysis in a worker thread: ts-morph's first parse takes about a second, which
// must not stall the studio's event loop (live event streams, other requests).
import { parentPort, workerData } from 'node:worker_threads';
import { ProjectAnalysis } from './analysis.ts';

export type AnalysisQuery = { op: 'targets'; nodeId: string } | { op: 'nodes' };
export type AnalysisRequest = AnalysisQuery & { id: number };
export type AnalysisResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

const analysis = new ProjectAnalysis((workerData as { projectDir: string }).projectDir);
parentPort!.on('message', (req: AnalysisRequest) => {
  try {
    const value = req.op === 'targets' ? analysis.targets(req.nodeId) : analysis.nodeIds();
    parentPort!.postMessage({ id: req.id, ok: true, value } satisfies AnalysisResponse);
  } catch (err) {
    parentPort!.postMessage({ id: req.id, ok: false, error: (err as Error).message } satisfies AnalysisResponse);
  }
});
