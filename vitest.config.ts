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

/**
 * Suites that spend their time waiting in real time (a platform's pace of edits and its Tier
 * limits, the seconds before a lead poll or a hand-over's end) and hold the bot to a pace:
 * they leave the cores idle, so they run at once in a group of their own, where no busy
 * suite delays their turns (beside the fast suites, on two cores, the paces failed).
 */
const WAITING = [
  "test/slack/pace.test.ts",
  "test/slack/rate-limits.test.ts",
  "test/slack/workspace-budget.test.ts",
  "test/telegram/pace.test.ts",
  "test/handover/handover.test.ts",
  "test/handover/handover-ends.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Suites start real servers (HTTP fakes, redis-server) and bot processes, each in a fork.
    pool: "forks",
    // The bot compiled once per run, for the suites that spawn it (test/support/bot-build.ts).
    globalSetup: ["test/support/bot-build.ts"],
    maxWorkers: 2,
    // The groups run one after another (slow, waiting, fast), each with its own forks: measured
    // on two cores, each group's forks keep the cores about as busy as its suites allow.
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/**/*.test.ts"],
          exclude: [...SLOW, ...WAITING],
          isolate: false,
          maxWorkers: 3,
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: "waiting",
          include: WAITING,
          isolate: false,
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
        },
      },
      // Its suites mostly wait (for a lease to lapse, a process to start): four at once keep
      // the two cores busier.
      {
        extends: true,
        test: { name: "slow", include: SLOW, maxWorkers: 4, sequence: { groupOrder: 0 } },
      },
    ],
  },
});
