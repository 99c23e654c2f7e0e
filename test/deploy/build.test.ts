import { execFile, spawn } from "node:child_process";
import { chmod, copyFile, cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { commandOf, envOf, finalStage, of, REAL } from "./deploy-files.ts";

// No Docker engine runs on the test machines: this runs what the image's build stage builds
// (`npm run build`) as the image's CMD does, from a copy laid out like the image's /app that
// the bot cannot write to, as with `docker run --read-only`. The build is the run's one
// (test/support/bot-build.ts: the same tsc command); its type check is `npm run lint`'s.

const ROOT = resolve(import.meta.dirname, "../..");
// Root writes anywhere: the bot then runs as `nobody`, as the image runs as its own user.
const NOBODY = process.getuid?.() === 0 ? { uid: 65_534, gid: 65_534 } : {};

let app = "";
let data = "";

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), "image-app-"));
  data = await mkdtemp(join(tmpdir(), "image-data-"));
  await Promise.all([
    cp(inject("botBuild"), join(app, "dist"), { recursive: true }),
    copyFile(join(ROOT, "package.json"), join(app, "package.json")),
    copyProductionDependencies(join(app, "node_modules")),
  ]);
  // Read-only for everyone but root; DATA_DIR is the image's one writable volume.
  await promisify(execFile)("chmod", ["-R", "a-w,a+rX", app]);
  await chmod(data, 0o777);
}, 120_000);

afterAll(async () => {
  if (app) await promisify(execFile)("chmod", ["-R", "u+w", app]);
  await rm(app, { recursive: true, force: true });
  await rm(data, { recursive: true, force: true });
});

/**
 * The deps stage's `npm ci --omit=dev`: the lockfile's packages but its dev ones, copied from
 * the checkout's install. A copy, not a link: `nobody` cannot reach the checkout's own
 * node_modules when the project lies in a private folder (root's home, mode 0700).
 */
async function copyProductionDependencies(to: string): Promise<void> {
  const lock = JSON.parse(await readFile(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  await cp(join(ROOT, "node_modules"), to, {
    recursive: true,
    filter: (from) => {
      const path = relative(ROOT, from);
      // Dot entries of a node_modules folder (.bin, caches, npm's own lock) are no package.
      return lock.packages[path]?.dev !== true && !/(^|\/)node_modules\/\.[^/]+$/.test(path);
    },
  });
}

/** Runs the final stage's command in `app` with the image's ENV, stdin from `input`. */
function runLikeTheImage(
  input: string,
): Promise<{ code: number | null; out: string; err: string }> {
  const { final } = finalStage(REAL);
  const [command = "", ...args] = commandOf(of(final, "CMD").at(-1)?.args ?? "").argv;
  const child = spawn(command === "node" ? process.execPath : command, args, {
    cwd: app,
    env: {
      PATH: process.env.PATH ?? "",
      ...Object.fromEntries(envOf(final)),
      DATA_DIR: data,
      // Nowhere to write a cache: a read-only root file system has no writable HOME or /tmp.
      HOME: app,
      TMPDIR: app,
      LOG_LEVEL: "warn",
    },
    stdio: ["pipe", "pipe", "pipe"],
    ...NOBODY,
  });
  child.stdin.end(input);
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  return new Promise((done) => child.on("close", (code) => done({ code, out, err })));
}

describe("the image's build", () => {
  it("compiles to JavaScript that answers piped questions from a read-only install, without tsx", async () => {
    const run = await runLikeTheImage("hello from the image\n/language\n");
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toContain("You asked: “hello from the image”");
    expect(run.out).toContain("Answers here are in the language of each question (auto)");
  });
});
