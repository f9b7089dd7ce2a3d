import { defineConfig } from 'vitest/config';

// Integration suites start real servers (runtime, studio) on free loopback ports.
export default defineConfig({
  test: {
    include: ['test/integration/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
