import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { access, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";

const ROOT = resolve(import.meta.dirname, "../..");
// Inside the checkout, so the compiled modules find its node_modules as src/ does.
const CACHE = join(ROOT, "node_modules/.cache/chatbot-bridge-build");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
/** What the build is made of: a change to any of them makes a new one. */
const INPUTS = ["package.json", "tsconfig.json", "tsconfig.build.json", "src", "adapters"];

declare module "vitest" {
  export interface ProvidedContext {
    /** The bot compiled for this run (`<botBuild>/src/main.js`), by bot-build.ts. */
    botBuild: string;
  }
}

/**
 * Vitest's globalSetup (its named `setup`): compiles the bot once per run as `npm run build` and the image do
 * (tsc -p tsconfig.build.json), so that every bot process a test spawns (run-bot.ts) starts
 * from JavaScript instead of transforming each module through tsx at every start, which
 * takes about twice the time and CPU. Without the type check (`--noCheck`): `npm run lint`
 * does that. A run whose sources are those of the last build reuses it.
 */
export async function setup(project: TestProject): Promise<void> {
  project.provide("botBuild", await compiled());
  // In watch mode, a rerun after a change to the sources starts the bots of the new ones.
  project.onTestsRerun(async () => project.provide("botBuild", await compiled()));
}

async function compiled(): Promise<string> {
  const dir = join(CACHE, await inputsHash());
  if (await exists(join(dir, "src/main.js"))) return dir;
  await mkdir(CACHE, { recursive: true });
  const partial = `${dir}.${process.pid}.partial`;
  await promisify(execFile)(
    process.execPath,
    [TSC, "-p", "tsconfig.build.json", "--noCheck", "--outDir", partial],
    { cwd: ROOT },
  );
  // Another run may have finished the same build meanwhile: either is as good.
  await rename(partial, dir).catch(async (error: unknown) => {
    if (!(await exists(join(dir, "src/main.js")))) throw error;
    await rm(partial, { recursive: true, force: true });
  });
  await pruneOlderThan(dir, 60 * 60_000);
  return dir;
}

/** A hash of every input's path and content. */
async function inputsHash(): Promise<string> {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    const path = join(ROOT, input);
    const files = (await stat(path)).isDirectory()
      ? (await readdir(path, { recursive: true })).sort().map((file) => join(path, file))
      : [path];
    for (const file of files) {
      if (!(await stat(file)).isFile()) continue;
      hash.update(file).update(await readFile(file));
    }
  }
  return hash.digest("hex").slice(0, 16);
}

/** Removes the builds but `keep` last changed more than `ageMs` ago: no run uses them now. */
async function pruneOlderThan(keep: string, ageMs: number): Promise<void> {
  for (const entry of await readdir(CACHE)) {
    const path = join(CACHE, entry);
    if (path === keep || Date.now() - (await stat(path)).mtimeMs < ageMs) continue;
    await rm(path, { recursive: true, force: true });
  }
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
