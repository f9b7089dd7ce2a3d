import { defineConfig } from 'vitest/config';

// Browser end-to-end specs: playwright-core drives Debian's Chromium against the real
// headless studio. One browser for the whole suite (global setup); one studio and data dir
// per spec file, reset through its API before each test, and a fresh browser context per
// test (e2e/fixtures.ts).
export default defineConfig({
  test: {
    // Project modules must load through Node's own loader (src/main/runtime/project/loader.ts).
    server: { deps: { external: [/native-import\.mjs$/] } },
    include: ['e2e/**/*.spec.ts'],
    environment: 'node',
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    // expect.poll waits for what the page shows; its 1 s default is shorter than a busy
    // 2-core CI machine needs for a render after a round trip to the runtime.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    fileParallelism: false,
    // The spec files run one after another in one worker that loads the studio's modules
    // once (a worker per file loaded them again each time). No spec changes process-wide
    // state: each has its own studio, data dir and browser contexts.
    isolate: false,
  },
});
