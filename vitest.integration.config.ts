import { defineConfig } from 'vitest/config';

// Integration suites start real servers (runtime, studio) on free loopback ports.
export default defineConfig({
  test: {
    // Project modules must load through Node's own loader (src/main/runtime/project/loader.ts).
    server: { deps: { external: [/native-import\.mjs$/] } },
    include: ['test/integration/**/*.test.ts', 'test/fuzz/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/integration/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
