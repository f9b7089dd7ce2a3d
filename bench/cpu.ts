// Shared by the benchmarks: CPU milliseconds per call of an async function, in this process,
// after a warm-up (JIT, caches), over `calls` sequential calls.
export async function cpuMsPerCall(fn: (i: number) => Promise<void>, calls: number, warmup = 300): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const c0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) await fn(warmup + i);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / calls;
}
