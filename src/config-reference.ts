import { settingDefault, settingNames, settingSpells } from "./config.ts";
import { SETTING_DOCS, type SettingDoc } from "./config-docs.ts";

/**
 * The configuration reference, written from SETTING_DOCS and the schema (`npm run docs:config`):
 * the table of docs/configuration.md, the README's short one and `.env.example`. A test compares
 * each file with what this writes.
 */

export const TABLE_START =
  "<!-- Written by `npm run docs:config` from src/config-docs.ts: edit it there, not here. -->";
export const TABLE_END = "<!-- End of the written table. -->";

/** The table of every setting: the variables, their meaning, what they are when unset. */
export function configTable(): string {
  return table(["variable", "meaning", "default"], (doc, names) => [names, doc.meaning, doc.unset]);
}

/**
 * The README's table: every setting and what it is when unset, each row linking to its
 * meaning in docs/configuration.md.
 */
export function readmeConfigTable(): string {
  return table(["variable", "default"], (doc, names) => [names, doc.unset]);
}

/** `markdown` with its written table (between the markers) replaced by `written`. */
export function withWrittenTable(markdown: string, written: string): string {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error("no written table between the markers");
  return `${markdown.slice(0, start)}${TABLE_START}\n${written}\n${markdown.slice(end)}`;
}

function table(
  headings: readonly string[],
  cellsOf: (doc: SettingDoc, names: string) => readonly string[],
): string {
  const rows = SETTING_DOCS.map((doc) => {
    const names = doc.names.map((name) => `\`${name}\``).join(", ");
    return `|${cellsOf(doc, names)
      .map((cell) => (cell ? ` ${cell} ` : " "))
      .join("|")}|`;
  });
  const head = `| ${headings.join(" | ")} |`;
  return [head, `|${headings.map(() => " --- ").join("|")}|`, ...rows].join("\n");
}

/**
 * `.env.example`: every setting, each under its meaning, set to what the bot takes when it is
 * unset (empty where there is no such value: a token, a list), so a copy changes nothing until
 * edited.
 */
export function envExample(): string {
  const lines = [
    "# chatbot-bridge's settings: copy this file to .env and set what you use. Empty counts as",
    "# unset. Each is described in docs/configuration.md; this file is written by",
    "# `npm run docs:config` from src/config-docs.ts.",
  ];
  for (const doc of SETTING_DOCS) {
    if (doc.system) continue;
    lines.push("", ...comment(doc));
    for (const name of doc.names) lines.push(`${name}=${spelledDefault(name)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The variables the schema reads that SETTING_DOCS does not describe, and the reverse. */
export function undocumented(): { missing: string[]; unknown: string[] } {
  const documented = SETTING_DOCS.flatMap((doc) => doc.names);
  const names = settingNames();
  return {
    missing: names.filter((name) => !documented.includes(name)),
    unknown: documented.filter((name) => !names.includes(name)),
  };
}

/** How the default of `name` is written in the environment ("" where it has none). */
export function spelledDefault(name: string): string {
  const value = settingDefault(name);
  if (typeof value === "number" || typeof value === "string") return String(value);
  if (typeof value === "boolean") {
    const spelled = ["on", "off", "true", "false"].find((s) => settingSpells(name, s, value));
    return spelled ?? "";
  }
  return "";
}

function comment(doc: SettingDoc): string[] {
  const unset = doc.unset.replace(/^unset: /, "");
  const text = plain(unset ? `${doc.meaning}. Unset: ${unset}.` : `${doc.meaning}.`);
  const words = text.split(" ");
  const lines: string[] = [];
  let line = "#";
  for (const word of words) {
    if (line.length + word.length + 1 > 95) {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** Markdown as a comment reads it: code without backticks, links as their text. */
function plain(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replaceAll("`", "")
    .replace(/\.\./g, ".");
}
