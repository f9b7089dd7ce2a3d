import { defineConfig } from 'vitest/config';

// Unit tests live beside the code they test (src/**/*.test.ts).
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'examples/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
