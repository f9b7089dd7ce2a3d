import { defineConfig } from 'vitest/config';

// Browser end-to-end specs: playwright-core drives Debian's Chromium against `agent-studio serve`.
export default defineConfig({
  test: {
    include: ['e2e/**/*.spec.ts'],
    environment: 'node',
    testTimeout: 90_000,
    hookTimeout: 90_000,
    fileParallelism: false,
  },
});
