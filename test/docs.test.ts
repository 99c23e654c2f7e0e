import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// The README and docs/ as a newcomer finds their way in them: a README of a few screens that
// links every page, each page saying first what it is for, and no link that goes nowhere.

const ROOT = resolve(import.meta.dirname, "..");
const PAGES = readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`);
const DOCUMENTS = ["README.md", ...PAGES, "deploy/observability/README.md"];

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The text outside fenced code blocks, where links and headings are what they look like. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, "")
    .replaceAll(" ", "-");
}

function anchorsIn(path: string): Set<string> {
  const headings = prose(read(path)).match(/^#{1,6} .*$/gm) ?? [];
  return new Set(headings.map((line) => anchorOf(line.replace(/^#+ /, ""))));
}

describe("the README and docs/", () => {
  it("keeps the README to a few screens, linking every page of docs/", () => {
    const readme = read("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    for (const page of PAGES) expect(readme, `README links no ${page}`).toContain(`](${page})`);
  });

  it("starts every page with a title and what it is for", () => {
    for (const page of PAGES) {
      const [title, blank, purpose] = read(page).split("\n");
      expect(title, page).toMatch(/^# \S/);
      expect(blank, page).toBe("");
      expect(purpose?.length, `${page} says first what it is for`).toBeGreaterThan(40);
    }
  });

  it("cites, in the code and the manifests, only pages and headings that exist", () => {
    const cited: string[] = [];
    const files = execFileSync("git", ["ls-files", "src", "adapters", "test", "deploy", "docs"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((file) => /\.(ts|ya?ml|env|md|json)$/.test(file));
    for (const file of [...files, ".env.example", "Dockerfile", "docker-compose.yml"]) {
      // (docs/deploy.md, "Redis memory"): a heading's start, across a line break too.
      const text = read(file).replace(/\s*\n\s*(?:\*|#|\/\/)?\s*/g, " ");
      for (const [, page = "", heading = ""] of text.matchAll(/(docs\/[\w-]+\.md), "([^"]+)"/g)) {
        const headings = prose(read(page)).match(/^#{1,6} .*$/gm) ?? [];
        const found = headings.some((line) => line.replace(/^#+ /, "").startsWith(heading));
        if (!found) cited.push(`${file}: ${page}, "${heading}"`);
      }
    }
    expect(cited).toEqual([]);
  });

  it("has no link to a file or a heading that is not there", () => {
    const broken: string[] = [];
    for (const document of DOCUMENTS) {
      for (const [, target = ""] of prose(read(document)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?|mailto):/.test(target)) continue;
        const [path = "", anchor] = target.split("#");
        const file =
          path === "" ? document : relative(ROOT, resolve(ROOT, dirname(document), path));
        if (!existsSync(join(ROOT, file))) broken.push(`${document}: ${target} (no ${file})`);
        else if (anchor && file.endsWith(".md") && !anchorsIn(file).has(anchor)) {
          broken.push(`${document}: ${target} (no heading #${anchor} in ${file})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
