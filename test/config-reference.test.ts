import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse as parseDotenv } from "dotenv";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { SETTING_DOCS } from "../src/config-docs.ts";
import {
  configTable,
  envExample,
  readmeConfigTable,
  spelledDefault,
  undocumented,
  withWrittenTable,
} from "../src/config-reference.ts";

const ROOT = resolve(import.meta.dirname, "..");
const read = (path: string) => readFileSync(resolve(ROOT, path), "utf8");

describe("the configuration reference (npm run docs:config)", () => {
  it("describes every variable the schema reads, and none it does not", () => {
    expect(undocumented()).toEqual({ missing: [], unknown: [] });
  });

  it("is what docs/configuration.md, the README and .env.example hold: run npm run docs:config after a change", () => {
    const reference = read("docs/configuration.md");
    expect(withWrittenTable(reference, configTable()), "docs/configuration.md is stale").toBe(
      reference,
    );
    const readme = read("README.md");
    expect(withWrittenTable(readme, readmeConfigTable()), "README.md is stale").toBe(readme);
    expect(read(".env.example"), ".env.example is stale").toBe(envExample());
  });

  it("gives, for every variable with a default, the default the schema takes", () => {
    for (const doc of SETTING_DOCS) {
      for (const name of doc.names) {
        const spelled = spelledDefault(name);
        // The default as a word of its own: 10 is not found in "100".
        const word = new RegExp(
          `(^|[^\\w.])${spelled.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^\\w.])`,
        );
        if (spelled) expect(doc.unset, name).toMatch(word);
      }
    }
  });

  it("makes .env.example, copied to .env as it is, change nothing", () => {
    expect(loadConfig(parseDotenv(envExample()))).toEqual(loadConfig({}));
  });
});
