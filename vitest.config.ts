import { configDefaults, defineConfig } from 'vitest/config';

// Deno, Bun and the other Node versions are installed only by `npm run test:runtimes` (scripts/install-runtimes.sh
// into .runtimes/), which sets SVC_TEST_EXTRA_RUNTIMES=1; plain `npm test` leaves their tests out.
const EXTRA_RUNTIME_TESTS = [
  'test/portable/deno.test.ts',
  'test/portable/bun.test.ts',
  'test/portable/deno-s3.test.ts',
  'test/portable/bun-s3.test.ts',
  'test/portable/node22.test.ts',
  'test/portable/node24.test.ts',
  'test/runtimes/deno-bun.test.ts',
  'test/runtimes/git-deno-bun.test.ts',
  'test/runtimes/scale-out-deno-bun.test.ts',
  'test/runtimes/node-floor.test.ts',
];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, '.runtimes/**', ...(process.env.SVC_TEST_EXTRA_RUNTIMES === '1' ? [] : EXTRA_RUNTIME_TESTS)],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
