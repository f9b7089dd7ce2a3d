import { defineConfig } from 'vitest/config';

// Unit tests live beside the code they test (src/**/*.test.ts).
export default defineConfig({
  test: {
    // Project modules must load through Node's own loader (src/main/runtime/project/loader.ts).
    server: { deps: { external: [/native-import\.mjs$/] } },
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'examples/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
