import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Suites start real servers (HTTP fakes, redis-server); on a 2-core machine two forks
    // keep the run fast without starving the servers they talk to.
    pool: "forks",
    maxWorkers: 2,
  },
});
