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
  parseComposeFile,
  parseDockerfile,
  programOf,
  REAL,
  read,
  SECRET_NAME,
  words,
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

interface PackageJson {
  scripts: Record<string, string>;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
}
const packageOf = (files: DeployFiles) => JSON.parse(files.packageJson) as PackageJson;

const entryFile = (files: DeployFiles) =>
  packageOf(files)
    .scripts.start?.split(/\s+/)
    .find((word) => /\.[cm]?[jt]s$/.test(word)) ?? "";

/**
 * What `npm run build` compiles: the tsconfig it names, that file's outDir and rootDir, and
 * where the entry of `npm start` lands (src/main.ts → dist/src/main.js).
 */
function buildOutput(files: DeployFiles) {
  const script = packageOf(files).scripts.build ?? "";
  expect(script, "package.json has no build script").toMatch(/^tsc\s/);
  const config = /(?:^|\s)(?:-p|--project)\s+(\S+)/.exec(script)?.[1] ?? "tsconfig.json";
  const { compilerOptions = {} } = JSON.parse(read(config)) as {
    compilerOptions?: { outDir?: string; rootDir?: string; noEmit?: boolean };
  };
  expect(compilerOptions.noEmit, `${config} emits nothing`).not.toBe(true);
  const outDir = posix.normalize(compilerOptions.outDir ?? "");
  expect(outDir, `${config} has no outDir`).not.toBe(".");
  const fromRoot = posix.relative(compilerOptions.rootDir ?? ".", entryFile(files));
  const entry = posix.join(outDir, fromRoot.replace(/\.([cm]?)ts$/, ".$1js"));
  return { config, outDir, entry };
}

/** The stage that runs `npm run build`, and the final stage's command line. */
function buildAndRun(files: DeployFiles) {
  const { stages, index, final } = finalStage(files);
  const builds = stages.findIndex((stage) =>
    of(stage.instructions, "RUN").some((r) => /\bnpm\s+run(-script)?\s+build\b/.test(r.args)),
  );
  expect(builds, "no stage runs npm run build").toBeGreaterThanOrEqual(0);
  expect(builds, "the final stage builds (and so holds the build tools)").not.toBe(index);
  const entrypoint = of(final, "ENTRYPOINT").at(-1);
  const cmd = of(final, "CMD").at(-1);
  const argv = [entrypoint, cmd].flatMap((i) => (i ? commandOf(i.args).argv : []));
  return {
    stages,
    final,
    build: stages[builds],
    /** The build stage's instructions, with those of the stages it is built FROM. */
    buildStages: lineage(stages, builds).flatMap((s) => s.instructions),
    // Shell form would make /bin/sh PID 1, and sh does not pass SIGTERM on to node.
    exec: commandOf((entrypoint ?? cmd)?.args ?? "").exec,
    argv,
  };
}

/** The major of the oldest Node package.json allows: the one the tests and CI run on. */
const testedNodeMajor = (files: DeployFiles) =>
  Number(/^>=\s*(\d+)/.exec(packageOf(files).engines?.node ?? "")?.[1]);

/**
 * The Node LTS lines still supported, and until when (https://nodejs.org/en/about/previous-releases):
 * the image runs the oldest of them, the closest to the Node the tests run on.
 */
const LTS_SUPPORTED_UNTIL: Readonly<Record<number, string>> = {
  22: "2027-04-30",
  24: "2028-04-30",
};

/** The oldest LTS still supported today, at or above the Node the tests run on. */
const imageNodeMajor = (files: DeployFiles) =>
  Number(
    Object.entries(LTS_SUPPORTED_UNTIL).find(
      ([major, until]) =>
        Number(major) >= testedNodeMajor(files) && new Date(`${until}T23:59:59Z`) > new Date(),
    )?.[0],
  );

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

  "runs the oldest Node LTS still supported, slim, the same image in every stage": {
    check: (files) => {
      const { stages } = finalStage(files);
      expect(
        testedNodeMajor(files),
        "package.json's engines.node names no minimum",
      ).toBeGreaterThanOrEqual(20);
      const lts = imageNodeMajor(files);
      expect(lts, "no supported LTS in the table: add the next one").toBeGreaterThan(0);
      for (const [index, stage] of stages.entries()) {
        const image = imageOf(stages, index);
        const match = /^node:(\d+)(?:\.\d+)*-(?:[a-z]+-)?slim(?:@sha256:[0-9a-f]{64})?$/.exec(
          image,
        );
        expect(match, `${stage.name ?? index}: ${image}`).not.toBeNull();
        expect(Number(match?.[1]), `${stage.name ?? index}: ${image}`).toBe(lts);
      }
    },
    brokenBy: {
      "the full image": edit("dockerfile", /^(FROM\s+node:\d+)-slim/gm, "$1"),
      "Node 20, out of support": edit("dockerfile", /^(?<from>FROM\s+node:)\d+/gm, "$<from>20"),
      "Node 24, further from the tested Node": edit(
        "dockerfile",
        /^(?<from>FROM\s+node:)\d+/gm,
        "$<from>24",
      ),
      "one stage on another major": edit("dockerfile", /^(?<from>FROM\s+node:)\d+/m, "$<from>24"),
      "engines raised past the image": edit("packageJson", /"node": ">=20"/, '"node": ">=24"'),
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

  "starts node itself (not npm, not tsx) on the compiled entry of `npm start`": {
    check: (files) => {
      const { entry } = buildOutput(files);
      const { exec, argv } = buildAndRun(files);
      expect(exec).toBe(true);
      expect(posix.basename(argv[0] ?? "")).toBe("node");
      expect(argv).toContain(entry);
      // tsx compiles into a cache folder at start: a read-only root file system stops it.
      expect(argv.filter((word) => /tsx|\.ts$/.test(word))).toEqual([]);
    },
    brokenBy: {
      "npm start": edit("dockerfile", /^CMD .*$/m, 'CMD ["npm", "start"]'),
      "shell form": edit("dockerfile", /^CMD .*$/m, "CMD node dist/src/main.js"),
      "another entry": edit(
        "dockerfile",
        /^CMD (.*)dist\/src\/main\.js/m,
        "CMD $1dist/src/simulator/cli.js",
      ),
      "the sources through tsx": edit(
        "dockerfile",
        /^CMD .*$/m,
        'CMD ["node", "--import", "tsx", "src/main.ts"]',
      ),
      "no build script": edit("packageJson", /"build":/, '"compile":'),
    },
  },

  "compiles in a build stage from the sources, and the final stage takes only the output": {
    check: (files) => {
      const { config, outDir } = buildOutput(files);
      const { build, buildStages, final } = buildAndRun(files);
      const entry = entryFile(files);
      // Static imports and the dynamic ones of what loads only when configured (the adapters),
      // from the entry on: every file the process can load.
      const imports = new Set<string>();
      const toRead = [entry];
      for (let file = toRead.pop(); file !== undefined; file = toRead.pop()) {
        for (const m of read(file).matchAll(/(?:from\s+|import\()"(\.{1,2}\/[^"]+\.ts)"/g)) {
          const path = posix.normalize(posix.join(posix.dirname(file), m[1] ?? ""));
          if (imports.has(path)) continue;
          imports.add(path);
          toRead.push(path);
        }
      }
      const copied = of(buildStages, "COPY")
        .map((c) => copyOf(c.args))
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources);
      const isCopied = (path: string) =>
        copied.some((s) => s === "." || path === s || path.startsWith(`${s}/`));
      for (const path of ["package.json", "package-lock.json", config, entry, ...imports]) {
        expect(isCopied(path), `${path} not copied into the build stage`).toBe(true);
        expect(ignoredBy(files.dockerignore, path), `${path} is in .dockerignore`).toBe(false);
      }
      const taken = of(final, "COPY").map((c) => copyOf(c.args));
      const workdir = of(buildStages, "WORKDIR").at(-1)?.args ?? "/";
      const output = taken.filter(
        (c) =>
          c.from === build?.name &&
          c.sources.some(
            (source) => posix.relative(workdir, posix.resolve(workdir, source)) === outDir,
          ),
      );
      expect(output, `the final stage does not take ${outDir}/ from the build stage`).toHaveLength(
        1,
      );
      // The sources stay behind: the image runs the JavaScript only.
      const sources = taken.filter((c) => c.from === undefined).flatMap((c) => c.sources);
      expect(sources.filter((s) => !/^package(-lock)?\.json$/.test(s))).toEqual([]);
    },
    brokenBy: {
      "adapters/ left out": edit("dockerfile", /^COPY adapters .*$/m, ""),
      "src/ ignored": edit("dockerignore", /$/, "\nsrc\n"),
      "the build config ignored": edit("dockerignore", /$/, "\ntsconfig.*.json\n"),
      "dist not taken": edit("dockerfile", /^COPY --from=build .*dist.*$/m, ""),
      "built in the final stage": (f) => ({
        ...f,
        dockerfile: f.dockerfile
          .replace(/^RUN npm run build.*$/m, "")
          .replace(/^USER /m, "RUN npm run build\nUSER "),
      }),
      "sources in the image": edit("dockerfile", /^USER /m, "COPY src ./src\nUSER "),
    },
  },

  "keeps build tools and type packages out of the runtime dependencies": {
    check: (files) => {
      const runtime = Object.keys(packageOf(files).dependencies ?? {});
      const buildOnly = /^(@types\/|typescript$|tsx$|vitest$|@biomejs\/)/;
      expect(runtime.filter((name) => buildOnly.test(name))).toEqual([]);
    },
    brokenBy: {
      "tsx at run time": edit(
        "packageJson",
        /"dependencies": \{/,
        '"dependencies": {\n    "tsx": "^4.23.15",',
      ),
      "a type package at run time": edit(
        "packageJson",
        /"dependencies": \{/,
        '"dependencies": {\n    "@types/mdast": "^4.0.4",',
      ),
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
      for (const run of npmInstalls) expect(run.args).toMatch(/--omit[= ]dev(\s|$)/);
      // package.json's allowScripts denies them; an npm that does not read it would run them.
      // In the build stage too: what an install script did there could reach the output.
      for (const run of parseDockerfile(files.dockerfile).all.filter(installsDependencies)) {
        expect(run.args).toMatch(/--ignore-scripts(\s|$)/);
      }
    },
    brokenBy: {
      "dev dependencies too": edit("dockerfile", /--omit=dev /g, ""),
      "install scripts run": edit("dockerfile", /--omit=dev --ignore-scripts /g, "--omit=dev "),
      "install scripts run in the build stage": edit(
        "dockerfile",
        /npm ci --ignore-scripts /,
        "npm ci ",
      ),
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
    },
    brokenBy: {
      "no VOLUME": edit("dockerfile", /^VOLUME .*$/m, ""),
      "owned by root": edit("dockerfile", /chown node:node /g, ""),
    },
  },

  "listens on every interface of the container (HOST=0.0.0.0), on the PORT it exposes": {
    check: (files) => {
      const { final } = finalStage(files);
      const env = envOf(final);
      // Only all interfaces can be reached through a published port, whatever the bot's default.
      expect(env.get("HOST")).toBe("0.0.0.0");
      const exposed = of(final, "EXPOSE").flatMap((e) => e.args.split(/\s+/));
      expect(exposed).toContain(env.get("PORT") ?? "3000");
    },
    brokenBy: {
      "no HOST": edit("dockerfile", /^\s+HOST=0\.0\.0\.0 \\\n/m, ""),
      "the loopback": edit("dockerfile", /^(\s+HOST=)0\.0\.0\.0/m, "$1127.0.0.1"),
      "another port exposed": edit("dockerfile", /^EXPOSE 3000$/m, "EXPOSE 8080"),
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
      // A local build must not stand in for the one the image makes.
      out.push("dist", "dist/src/main.js");
      for (const path of out) expect(ignoredBy(files.dockerignore, path), path).toBe(true);
      for (const path of ["package.json", "package-lock.json", "src/main.ts"]) {
        expect(ignoredBy(files.dockerignore, path), path).toBe(false);
      }
    },
    brokenBy: {
      ".env not ignored": edit("dockerignore", /^\.env$/m, ""),
      ".env let in again": edit("dockerignore", /$/, "\n!.env\n"),
      "data not ignored": edit("dockerignore", /^data$/m, ""),
      "dist not ignored": edit("dockerignore", /^dist$/m, ""),
    },
  },

  "compose: Redis keeps its data (appendonly yes, volatile-lru, a volume), reports health": {
    check: (files) => {
      const { redis } = composeServices(files);
      const command = words(redis.command);
      expect(hasPair(command, "--appendonly", "yes"), command.join(" ")).toBe(true);
      expect(hasPair(command, "--maxmemory-policy", "volatile-lru"), command.join(" ")).toBe(true);
      // Without a bound Redis grows until the host kills it; with one, volatile-lru makes a
      // full Redis evict transient records only (the bot's kept records carry no TTL).
      const maxmemory = command[command.indexOf("--maxmemory") + 1] ?? "";
      expect(command.includes("--maxmemory") && /^[1-9]\d*(kb|mb|gb)$/i.test(maxmemory)).toBe(true);
      expect(words(redis.volumes).some((v) => v.split(":")[1] === "/data")).toBe(true);
      const test = words(yamlMap(redis.healthcheck, "redis healthcheck").test);
      expect(test).toEqual(expect.arrayContaining(["redis-cli", "ping"]));
    },
    brokenBy: {
      "appendonly no": edit("compose", /"--appendonly", "yes"/, '"--appendonly", "no"'),
      "allkeys-lru": edit("compose", /"volatile-lru"/, '"allkeys-lru"'),
      "no maxmemory": edit("compose", /"--maxmemory", "\w+", /, ""),
      "maxmemory 0 (unbounded)": edit("compose", /"--maxmemory", "\w+"/, '"--maxmemory", "0"'),
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
      // .env is read when it is there; a first `docker compose up` works without one.
      const envFiles = Array.isArray(bot.env_file) ? bot.env_file : [bot.env_file ?? ""];
      const dotEnv = envFiles
        .map((f) => (typeof f === "string" ? { path: f } : yamlMap(f, "env_file")))
        .find((f) => f.path === ".env");
      expect(dotEnv, "env_file names no .env").toBeDefined();
      expect(dotEnv?.required, ".env is required").toBe("false");
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
      ".env required": edit("compose", /required: false/, "required: true"),
      ".env as a plain path": edit("compose", /- path: \.env\n\s+required: false/, "- .env"),
      "Redis only started": edit("compose", /service_healthy/, "service_started"),
      "a token inline": edit("compose", /^(\s+)STORE_URL: .*$/m, "$&\n$1SLACK_BOT_TOKEN: xoxb-1"),
    },
  },

  "compose: the bot's port is published on the host's loopback only": {
    check: (files) => {
      const { bot } = composeServices(files);
      const published = words(bot.ports);
      expect(published.length).toBeGreaterThan(0);
      // host_ip:host_port:container_port; without host_ip Docker listens on every interface
      // (and its iptables rules pass a host firewall by). A proxy exposes the webhook paths.
      for (const port of published) expect(port, port).toMatch(/^127\.0\.0\.1:\d+:\d+(\/tcp)?$/);
    },
    brokenBy: {
      "every interface": edit("compose", /"127\.0\.0\.1:(\d+:\d+)"/, '"$1"'),
      "0.0.0.0": edit("compose", /"127\.0\.0\.1:/, '"0.0.0.0:'),
    },
  },

  "compose: every service's logs rotate": {
    check: (files) => {
      const services = yamlMap(yamlMap(parseComposeFile(files), "the file").services, "services");
      for (const [name, service] of Object.entries(services)) {
        const logging = yamlMap(yamlMap(service, name).logging, `${name} logging`);
        expect(["json-file", "local"], name).toContain(logging.driver);
        const options = yamlMap(logging.options, `${name} logging options`);
        expect(String(options["max-size"]), name).toMatch(/^\d+[kmg]$/);
        expect(Number(options["max-file"]), name).toBeGreaterThanOrEqual(1);
      }
    },
    brokenBy: {
      "no max-size": edit("compose", /^\s+max-size: .*$/m, ""),
      "no logging for redis": (f) => ({
        ...f,
        compose: f.compose.replace(/(\n {2}redis:[\s\S]*?)\n {4}logging:(\n {6}.*)+/, "$1"),
      }),
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
