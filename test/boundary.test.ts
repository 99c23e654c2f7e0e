import { readdir, readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

const PLATFORM_IMPORT =
  /from\s+["'](@slack\/[^"']*|grammy[^"']*|@grammyjs\/[^"']*|[^"']*adapters\/[^"']*)["']/;

describe("the dependency rule", () => {
  it("keeps Slack, Telegram and the adapters out of the core (src/ but main.ts)", async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(join(ROOT, "src"))) {
      if (relative(ROOT, file) === join("src", "main.ts")) continue;
      const match = PLATFORM_IMPORT.exec(await readFile(file, "utf8"));
      if (match) offenders.push(`${relative(ROOT, file)} imports ${match[1]}`);
    }
    expect(offenders).toEqual([]);
  });

  it("reads the environment only in config.ts and the entry points", async () => {
    const allowed = new Set([
      "src/config.ts",
      "src/main.ts",
      "src/simulator/cli.ts",
      "src/feedback/export-cli.ts",
    ]);
    const offenders: string[] = [];
    for (const file of [
      ...(await sourceFiles(join(ROOT, "src"))),
      ...(await sourceFiles(join(ROOT, "adapters"))),
    ]) {
      const path = relative(ROOT, file);
      if (!allowed.has(path) && (await readFile(file, "utf8")).includes("process.env"))
        offenders.push(path);
    }
    expect(offenders).toEqual([]);
  });
});
