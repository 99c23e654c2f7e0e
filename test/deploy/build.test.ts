import { execFile, spawn } from "node:child_process";
import { chmod, copyFile, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandOf, envOf, finalStage, of, REAL } from "./deploy-files.ts";

// No Docker engine runs on the test machines: this builds what the image's build stage builds
// (`npm run build`) and runs it as the image's CMD does, from a copy laid out like the
// image's /app that the bot cannot write to, as with `docker run --read-only`.

const ROOT = resolve(import.meta.dirname, "../..");
// Root writes anywhere: the bot then runs as `nobody`, as the image runs as its own user.
const NOBODY = process.getuid?.() === 0 ? { uid: 65_534, gid: 65_534 } : {};

let app = "";
let data = "";

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), "image-app-"));
  data = await mkdtemp(join(tmpdir(), "image-data-"));
  await promisify(execFile)("npm", ["run", "build", "--", "--outDir", join(app, "dist")], {
    cwd: ROOT,
  });
  await copyFile(join(ROOT, "package.json"), join(app, "package.json"));
  await symlink(join(ROOT, "node_modules"), join(app, "node_modules"));
  // Read-only for everyone but root; DATA_DIR is the image's one writable volume.
  await promisify(execFile)("chmod", ["-R", "a-w,a+rX", app]);
  await chmod(data, 0o777);
}, 120_000);

afterAll(async () => {
  if (app) await promisify(execFile)("chmod", ["-R", "u+w", app]);
  await rm(app, { recursive: true, force: true });
  await rm(data, { recursive: true, force: true });
});

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
