import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseWorkers, workerReplicaId } from './workers.ts';

describe('--workers', () => {
  it('is 1 by default, an integer >= 1, or auto (one per CPU)', () => {
    expect(parseWorkers(undefined)).toBe(1);
    expect(parseWorkers('3')).toBe(3);
    expect(parseWorkers('auto')).toBe(os.availableParallelism());
    for (const bad of ['0', '-1', '1.5', 'two', '', true]) expect(parseWorkers(bad)).toBeNull();
  });
});

describe('a worker replica id', () => {
  it("is the operator's REPLICA_ID, else the host name, and the worker's pid", () => {
    expect(workerReplicaId('web-1')).toBe(`web-1-${process.pid}`);
    expect(workerReplicaId(undefined)).toBe(`${os.hostname()}-${process.pid}`);
    expect(workerReplicaId('  ')).toBe(`${os.hostname()}-${process.pid}`);
  });
});
