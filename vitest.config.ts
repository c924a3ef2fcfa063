import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Every test runs with a HOME and XDG_STATE_HOME of its own, never the user's (issue 25, item 20).
    globalSetup: ['./test/helpers/own-home.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
