import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

// What the docs and .env.example tell an operator about TELEGRAM_RICH_MESSAGES, held to
// what the setting does: off unless asked for, because some clients cannot show them.

const ROOT = resolve(import.meta.dirname, "../..");
const TELEGRAM = readFileSync(resolve(ROOT, "docs/telegram.md"), "utf8");
const CONFIGURATION = readFileSync(resolve(ROOT, "docs/configuration.md"), "utf8");
const ENV_EXAMPLE = readFileSync(resolve(ROOT, ".env.example"), "utf8");
const HEADING = "### Rich messages (`TELEGRAM_RICH_MESSAGES`)";

describe("docs/telegram.md on Telegram rich messages", () => {
  it("says why they are off, which clients cannot show them, and how to turn them on", () => {
    const start = TELEGRAM.indexOf(`\n${HEADING}\n`);
    expect(start, `docs/telegram.md has no "${HEADING}"`).toBeGreaterThanOrEqual(0);
    const section = TELEGRAM.slice(start, TELEGRAM.indexOf("\n#", start + HEADING.length + 2));
    expect(section).toContain("off by default");
    expect(section).toContain("not supported");
    for (const client of ["Telegram Web", "Web K", "Web A", "macOS app", "AyuGram", "Beeper"]) {
      expect(section).toContain(client);
    }
    expect(section).toContain("`TELEGRAM_RICH_MESSAGES=on`");
  });

  it("lists the setting, off by default, in the Telegram settings, the configuration table and .env.example", () => {
    const rows = `${TELEGRAM}\n${CONFIGURATION}`
      .split("\n")
      .filter((line) => line.startsWith("| `TELEGRAM_RICH_MESSAGES` |"));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.split(" | ").at(-1)).toMatch(/^`off`/);
    expect(ENV_EXAMPLE.split("\n")).toContain("TELEGRAM_RICH_MESSAGES=off");
  });
});
