import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import {
  commandOf,
  composeServices,
  copyOf,
  type DeployFiles,
  durationMs,
  environmentOf,
  envOf,
  finalStage,
  hasPair,
  type Instruction,
  ignoredBy,
  imageOf,
  installsDependencies,
  lineage,
  of,
  parseDockerfile,
  programOf,
  REAL,
  read,
  SECRET_NAME,
  words,
  type Yaml,
  yamlMap,
} from "./deploy-files.ts";

type Mutate = (files: DeployFiles) => DeployFiles;
const edit =
  (file: keyof DeployFiles, pattern: RegExp, replacement: string): Mutate =>
  (files) => ({ ...files, [file]: files[file].replace(pattern, replacement) });

interface Part {
  check: (files: DeployFiles) => void;
  /** Each of these files breaks the part: the check must throw on it. */
  brokenBy: Record<string, Mutate>;
}

const entryFile = (files: DeployFiles) =>
  (JSON.parse(files.packageJson) as { scripts: { start: string } }).scripts.start
    .split(/\s+/)
    .find((word) => /\.[cm]?[jt]s$/.test(word)) ?? "";

const CONTRACT: Record<string, Part> = {
  "builds in stages: the final stage takes its files from an earlier one": {
    check: (files) => {
      const { stages, final } = finalStage(files);
      expect(stages.length).toBeGreaterThanOrEqual(2);
      const earlier = stages.slice(0, -1).map((s) => s.name);
      const taken = of(final, "COPY").map((c) => copyOf(c.args).from);
      expect(taken.some((from) => from !== undefined && earlier.includes(from))).toBe(true);
    },
    brokenBy: {
      "one stage": (f) => ({
        ...f,
        dockerfile: f.dockerfile.slice(f.dockerfile.lastIndexOf("\nFROM ")),
      }),
    },
  },

  "runs on a current Node LTS slim image": {
    check: (files) => {
      const { stages, index } = finalStage(files);
      const image = imageOf(stages, index);
      const match = /^node:(\d+)(?:\.\d+)*-(?:[a-z]+-)?slim(?:@sha256:[0-9a-f]{64})?$/.exec(image);
      expect(match, image).not.toBeNull();
      // Even majors are the LTS lines; 20 reached its end of life in April 2026.
      expect(Number(match?.[1]) % 2, image).toBe(0);
      expect(Number(match?.[1]), image).toBeGreaterThanOrEqual(22);
    },
    brokenBy: {
      "the full image": edit("dockerfile", /^(FROM\s+node:\d+)-slim/gm, "$1"),
      "Node 20": edit("dockerfile", /^(?<from>FROM\s+node:)\d+/gm, "$<from>20"),
    },
  },

  "runs as a non-root user": {
    check: (files) => {
      const user = of(finalStage(files).final, "USER").at(-1)?.args.split(":")[0]?.trim();
      expect(user).toBeDefined();
      expect(["root", "0"]).not.toContain(user);
    },
    brokenBy: {
      "USER root": edit("dockerfile", /^USER .*$/m, "USER root"),
      "no USER": edit("dockerfile", /^USER .*$/m, ""),
    },
  },

  "has a HEALTHCHECK that asks /healthz with node (slim has no curl)": {
    check: (files) => {
      const check = of(finalStage(files).final, "HEALTHCHECK").at(-1)?.args ?? "";
      const command = check.replace(/^(?:--\S+\s+)*/, "");
      expect(command).toMatch(/^CMD\s/i);
      const parsed = commandOf(command.replace(/^CMD\s+/i, ""));
      expect(programOf(parsed)).toBe("node");
      expect(parsed.argv.join(" ")).toContain("/healthz");
    },
    brokenBy: {
      "no HEALTHCHECK": edit("dockerfile", /^HEALTHCHECK[^\n]*\\\n[^\n]*$/m, ""),
      curl: edit("dockerfile", /CMD \["node", "-e", .*\]$/m, "CMD curl -f localhost:3000/healthz"),
      "another path": edit("dockerfile", /\/healthz/g, "/metrics"),
    },
  },

  "starts node itself (not npm) on the entry file of `npm start`": {
    check: (files) => {
      const pkg = JSON.parse(files.packageJson) as {
        scripts: { start: string };
        dependencies?: Record<string, string>;
      };
      const entry = entryFile(files);
      expect(entry, pkg.scripts.start).not.toBe("");
      const { final } = finalStage(files);
      const entrypoint = of(final, "ENTRYPOINT").at(-1);
      const cmd = of(final, "CMD").at(-1);
      // Shell form would make /bin/sh PID 1, and sh does not pass SIGTERM on to node.
      expect(commandOf((entrypoint ?? cmd)?.args ?? "").exec).toBe(true);
      const argv = [entrypoint, cmd].flatMap((i) => (i ? commandOf(i.args).argv : []));
      expect(posix.basename(argv[0] ?? "")).toBe("node");
      expect(argv).toContain(entry);
      if (pkg.scripts.start.startsWith("tsx ")) {
        expect(argv.join(" ")).toMatch(/--import[= ]tsx(\s|$)/);
        // The image has no dev dependencies: tsx must be a production one.
        expect(pkg.dependencies ?? {}).toHaveProperty("tsx");
      }
    },
    brokenBy: {
      "npm start": edit("dockerfile", /^CMD .*$/m, 'CMD ["npm", "start"]'),
      "shell form": edit("dockerfile", /^CMD .*$/m, "CMD node --import tsx src/main.ts"),
      "another entry": edit("dockerfile", /^CMD (.*)src\/main\.ts/m, "CMD $1src/simulator/cli.ts"),
      "no tsx": edit("dockerfile", /^CMD .*$/m, 'CMD ["node", "src/main.ts"]'),
      "tsx a dev dependency": edit("packageJson", /"tsx":/, '"tsx-moved":'),
    },
  },

  "copies in package.json, the entry file and every folder it imports": {
    check: (files) => {
      const entry = entryFile(files);
      const imports = [...read(entry).matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)].map((m) =>
        posix.normalize(posix.join(posix.dirname(entry), m[1] ?? "")),
      );
      const copied = of(finalStage(files).final, "COPY")
        .map((c) => copyOf(c.args))
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources);
      const isCopied = (path: string) =>
        copied.some((s) => s === "." || path === s || path.startsWith(`${s}/`));
      for (const path of ["package.json", entry, ...imports]) {
        expect(isCopied(path), path).toBe(true);
        expect(ignoredBy(files.dockerignore, path), `${path} is in .dockerignore`).toBe(false);
      }
    },
    brokenBy: {
      "adapters/ left out": edit("dockerfile", /^COPY adapters .*$/m, ""),
      "src/ ignored": edit("dockerignore", /$/, "\nsrc\n"),
    },
  },

  "installs production dependencies only, without install scripts": {
    check: (files) => {
      const { stages, index, final } = finalStage(files);
      const installs = final.filter(installsDependencies);
      for (const copy of of(final, "COPY").map((c) => copyOf(c.args))) {
        if (!copy.sources.some((s) => s.split("/").includes("node_modules"))) continue;
        // node_modules from the build context would be the build machine's, dev tools and all.
        expect(copy.from, "node_modules copied from the build context").toBeDefined();
        const from = stages.findIndex((s) => s.name === copy.from);
        expect(from).toBeGreaterThanOrEqual(0);
        // The same image, so classic-level's prebuilt binary matches the runtime's libc.
        expect(imageOf(stages, from)).toBe(imageOf(stages, index));
        installs.push(...lineage(stages, from).flatMap((s) => s.instructions));
      }
      const npmInstalls = installs.filter(installsDependencies);
      expect(npmInstalls.length).toBeGreaterThan(0);
      for (const run of npmInstalls) {
        expect(run.args).toMatch(/--omit[= ]dev(\s|$)/);
        // package.json's allowScripts denies them; an npm that does not read it would run them.
        expect(run.args).toMatch(/--ignore-scripts(\s|$)/);
      }
    },
    brokenBy: {
      "dev dependencies too": edit("dockerfile", /--omit=dev /g, ""),
      "install scripts run": edit("dockerfile", /--ignore-scripts /g, ""),
      "node_modules from the context": edit("dockerfile", /--from=\S+ \/app\//, ""),
    },
  },

  "keeps the data directory in a volume the bot's user owns, in production mode": {
    check: (files) => {
      const { final } = finalStage(files);
      const env = envOf(final);
      expect(env.get("NODE_ENV")).toBe("production");
      const dataDir = env.get("DATA_DIR") ?? "";
      expect(dataDir).toMatch(/^\//);
      const volumes = of(final, "VOLUME").flatMap((v) =>
        v.args.startsWith("[") ? (JSON.parse(v.args) as string[]) : v.args.split(/\s+/),
      );
      expect(volumes).toContain(dataDir);
      const user = of(final, "USER").at(-1)?.args.split(":")[0] ?? "";
      const chowned = (i: Instruction) => /chown/.test(i.args) && i.args.includes(dataDir);
      expect(
        final.some((i) => chowned(i) && i.args.includes(user)),
        dataDir,
      ).toBe(true);
      const exposed = of(final, "EXPOSE").flatMap((e) => e.args.split(/\s+/));
      expect(exposed).toContain(env.get("PORT") ?? "3000");
    },
    brokenBy: {
      "no VOLUME": edit("dockerfile", /^VOLUME .*$/m, ""),
      "owned by root": edit("dockerfile", /chown node:node /g, ""),
    },
  },

  "copies no .env and bakes in no secret": {
    check: (files) => {
      const { all } = parseDockerfile(files.dockerfile);
      const sources = [...of(all, "COPY"), ...of(all, "ADD")]
        .map((c) => copyOf(c.args))
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources);
      const dotEnv = (s: string) => /^\.env(\..*)?$/.test(posix.basename(s));
      expect(sources.filter((s) => dotEnv(s) && !s.endsWith(".example"))).toEqual([]);
      const names = [
        ...of(all, "ENV").flatMap((e) => [...envOf([e]).keys()]),
        ...of(all, "ARG").map((a) => a.args.split("=")[0] ?? ""),
      ];
      expect(names.filter((n) => SECRET_NAME.test(n))).toEqual([]);
    },
    brokenBy: {
      "COPY .env": edit("dockerfile", /^USER /m, "COPY .env ./\nUSER "),
      "a token in ENV": edit("dockerfile", /^USER /m, "ENV SLACK_BOT_TOKEN=xoxb-1\nUSER "),
    },
  },

  ".dockerignore keeps .env, node_modules, data and development files out": {
    check: (files) => {
      const out = [".env", ".env.local", "node_modules", "node_modules/zod/index.js", "data"];
      out.push("data/CURRENT", ".git", "test/config.test.ts", "bench/results/latest.json");
      for (const path of out) expect(ignoredBy(files.dockerignore, path), path).toBe(true);
      for (const path of ["package.json", "package-lock.json", "src/main.ts"]) {
        expect(ignoredBy(files.dockerignore, path), path).toBe(false);
      }
    },
    brokenBy: {
      ".env not ignored": edit("dockerignore", /^\.env$/m, ""),
      ".env let in again": edit("dockerignore", /$/, "\n!.env\n"),
      "data not ignored": edit("dockerignore", /^data$/m, ""),
    },
  },

  "compose: Redis keeps its data (appendonly yes, noeviction, a volume), reports health": {
    check: (files) => {
      const { redis } = composeServices(files);
      const command = words(redis.command);
      expect(hasPair(command, "--appendonly", "yes"), command.join(" ")).toBe(true);
      expect(hasPair(command, "--maxmemory-policy", "noeviction"), command.join(" ")).toBe(true);
      expect(words(redis.volumes).some((v) => v.split(":")[1] === "/data")).toBe(true);
      const test = words(yamlMap(redis.healthcheck, "redis healthcheck").test);
      expect(test).toEqual(expect.arrayContaining(["redis-cli", "ping"]));
    },
    brokenBy: {
      "appendonly no": edit("compose", /"--appendonly", "yes"/, '"--appendonly", "no"'),
      "allkeys-lru": edit("compose", /"noeviction"/, '"allkeys-lru"'),
      "no volume": edit("compose", /redis-data:\/data/, "redis-data:/elsewhere"),
    },
  },

  "compose: the bot uses that Redis once it is healthy, reads .env, publishes PORT": {
    check: (files) => {
      const { redisName, bot } = composeServices(files);
      const env = environmentOf(bot.environment);
      const store = new URL(env.STORE_URL ?? "");
      expect(store.protocol).toBe("redis:");
      expect(store.hostname).toBe(redisName);
      expect(store.password).toBe("");
      const dependsOn = yamlMap(yamlMap(bot.depends_on, "depends_on")[redisName], redisName);
      expect(dependsOn.condition).toBe("service_healthy");
      const envFiles = Array.isArray(bot.env_file) ? bot.env_file : [bot.env_file ?? ""];
      const envPath = (f: Yaml) => (typeof f === "string" ? f : String(yamlMap(f, "env").path));
      expect(envFiles.map(envPath)).toContain(".env");
      expect(bot.restart).toBe("unless-stopped");
      const containerPort = (p: string) =>
        p
          .replace(/\/tcp$/, "")
          .split(":")
          .at(-1);
      expect(words(bot.ports).map(containerPort)).toContain(env.PORT ?? "3000");
      // Secrets belong in .env, never in the compose file.
      const secrets = Object.keys(env).filter((k) => SECRET_NAME.test(k) && k !== "STORE_URL");
      expect(secrets).toEqual([]);
    },
    brokenBy: {
      "STORE_URL at localhost": edit("compose", /redis:\/\/redis:/, "redis://localhost:"),
      "Redis only started": edit("compose", /service_healthy/, "service_started"),
      "a token inline": edit("compose", /^(\s+)STORE_URL: .*$/m, "$&\n$1SLACK_BOT_TOKEN: xoxb-1"),
    },
  },

  "compose: a stop waits longer than the bot's shutdown grace": {
    check: (files) => {
      const { bot } = composeServices(files);
      const graceMs = loadConfig({}).shutdownGraceMs;
      expect(durationMs(bot.stop_grace_period)).toBeGreaterThan(graceMs);
    },
    brokenBy: { "Docker's default": edit("compose", /^\s+stop_grace_period: .*$/m, "") },
  },
};

describe("the deploy files' contract", () => {
  for (const [name, { check }] of Object.entries(CONTRACT)) it(name, () => check(REAL));
});

describe("each check fails on a file that breaks it", () => {
  for (const [name, { check, brokenBy }] of Object.entries(CONTRACT)) {
    for (const [change, mutate] of Object.entries(brokenBy)) {
      it(`${name}: ${change}`, () => {
        const broken = mutate(REAL);
        expect(broken, "the change changed nothing").not.toEqual(REAL);
        expect(() => check(broken)).toThrow();
      });
    }
  }
});
