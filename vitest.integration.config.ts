import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Vitest's order (files that failed, then the longest, first), with the packed-tarball test
 * last: `npm pack` and a global install keep a core busy for most of its time, and `npm test`
 * runs this suite beside the e2e suite (scripts/test.mjs), which has ended by then, so the two
 * do not compete for the cores. Run alone, the order changes nothing. */
class PackLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const last = (f: TestSpecification) => f.moduleId.replaceAll('\\', '/').endsWith('/test/integration/own-agent.test.ts');
    return [...sorted.filter((f) => !last(f)), ...sorted.filter(last)];
  }
}

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
    sequence: { sequencer: PackLastSequencer },
  },
});
