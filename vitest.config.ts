import { defineConfig } from "vitest/config";

/**
 * Suites whose subject is a process: a bot or CLI spawned (signals, exit codes, a closed pipe,
 * a real terminal, several processes on one store) or the image's `tsc` build. `npm test`
 * runs them with the rest; `npm run test:fast` leaves them out.
 */
const SLOW = [
  "test/main/**/*.test.ts",
  "test/deploy/build.test.ts",
  "test/console/process.test.ts",
  "test/console/pty.test.ts",
  "test/feedback/export.test.ts",
  "test/simulator/cli.test.ts",
  "test/store/embedded-processes.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Suites start real servers (HTTP fakes, redis-server) and bot processes: on a 2-core
    // machine a third fork made the suites that time a platform's pace fail, not finish sooner.
    pool: "forks",
    // The bot compiled once per run, for the suites that spawn it (test/support/bot-build.ts).
    globalSetup: ["test/support/bot-build.ts"],
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/**/*.test.ts"],
          exclude: SLOW,
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      // Its suites mostly wait (for a lease to lapse, a process to start): three at once keep
      // the two cores busier. They run before the rest, which times platforms' paces on two.
      {
        extends: true,
        test: { name: "slow", include: SLOW, maxWorkers: 3, sequence: { groupOrder: 0 } },
      },
    ],
  },
});
