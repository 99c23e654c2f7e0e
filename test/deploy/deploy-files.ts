// Readers for the deploy files (Dockerfile, .dockerignore, docker-compose.yml), written
// small and strict for the contract test: no Docker engine and no YAML package here.
import { readFileSync } from "node:fs";
import { posix, resolve } from "node:path";

// No Docker engine runs on the test machines, so the image and the compose file are checked
// by reading them: each check below is the contract an operator relies on, and the second
// suite breaks each file on purpose to show that every check notices.

const ROOT = resolve(import.meta.dirname, "../..");
export const read = (path: string) => readFileSync(resolve(ROOT, path), "utf8");

export interface DeployFiles {
  dockerfile: string;
  dockerignore: string;
  compose: string;
  packageJson: string;
}

export const REAL: DeployFiles = {
  dockerfile: read("Dockerfile"),
  dockerignore: read(".dockerignore"),
  compose: read("docker-compose.yml"),
  packageJson: read("package.json"),
};

// Names that hold secrets: never baked into the image or written into the compose file.
export const SECRET_NAME = /TOKEN|SECRET|API_KEY|PASSWORD|STORE_URL/;

// --- Reading a Dockerfile -------------------------------------------------------------

export interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  base: string;
  name: string | undefined;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): { stages: Stage[]; all: Instruction[] } {
  const logical: string[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.endsWith("\\")) pending += `${line.slice(0, -1)} `;
    else {
      logical.push(pending + line);
      pending = "";
    }
  }
  const stages: Stage[] = [];
  const all: Instruction[] = [];
  for (const line of logical) {
    const [, keyword = "", args = ""] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args };
    all.push(instruction);
    if (instruction.keyword === "FROM") {
      const words = args.split(/\s+/).filter((w) => !w.startsWith("--"));
      const as = words.findIndex((w) => w.toUpperCase() === "AS");
      const name = as > 0 ? words[as + 1]?.toLowerCase() : undefined;
      stages.push({ base: words[0] ?? "", name, instructions: [] });
    } else stages.at(-1)?.instructions.push(instruction);
  }
  return { stages, all };
}

/** The stage and the stages it is built FROM, oldest first (they pass on USER, ENV, CMD…). */
export function lineage(stages: Stage[], index: number): Stage[] {
  const stage = stages[index];
  if (!stage) return [];
  const parent = stages.findIndex((s, i) => i < index && s.name === stage.base.toLowerCase());
  return parent >= 0 ? [...lineage(stages, parent), stage] : [stage];
}

export const imageOf = (stages: Stage[], index: number) => lineage(stages, index)[0]?.base ?? "";
export const of = (instructions: Instruction[], keyword: string) =>
  instructions.filter((i) => i.keyword === keyword);

export function finalStage(files: DeployFiles) {
  const { stages, all } = parseDockerfile(files.dockerfile);
  const index = stages.length - 1;
  return { stages, all, index, final: lineage(stages, index).flatMap((s) => s.instructions) };
}

/** Exec form (a JSON array) or shell form, which runs under `/bin/sh -c`. */
export function commandOf(args: string): { exec: boolean; argv: string[] } {
  const text = args.trim();
  if (text.startsWith("[")) return { exec: true, argv: JSON.parse(text) as string[] };
  return { exec: false, argv: ["/bin/sh", "-c", text] };
}

export const programOf = ({ exec, argv }: { exec: boolean; argv: string[] }) =>
  posix.basename((exec ? argv[0] : argv[2]?.split(/\s+/)[0]) ?? "");

export function copyOf(args: string): { from: string | undefined; sources: string[] } {
  const words = args.split(/\s+/);
  const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
  const paths = words.filter((w) => !w.startsWith("--"));
  const sources = paths.slice(0, -1).map((p) => p.replace(/^\.\//, "").replace(/\/$/, "") || ".");
  return { from: from?.toLowerCase(), sources };
}

export function envOf(instructions: Instruction[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const { args } of of(instructions, "ENV")) {
    const pairs = [...args.matchAll(/(\w+)=("[^"]*"|'[^']*'|\S*)/g)];
    if (pairs.length === 0) {
      const [, key, value] = /^(\w+)\s+(.*)$/.exec(args) ?? [];
      if (key) env.set(key, value ?? "");
    }
    for (const [, key = "", value = ""] of pairs) env.set(key, value.replace(/^["']|["']$/g, ""));
  }
  return env;
}

export const installsDependencies = (i: Instruction) =>
  i.keyword === "RUN" && /\bnpm\s+(ci|install|i)\b/.test(i.args);

/** Docker's .dockerignore rules: globs from the context root, the last matching line wins. */
export function ignoredBy(dockerignore: string, path: string): boolean {
  let ignored = false;
  for (const raw of dockerignore.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const negate = line.startsWith("!");
    const pattern = posix.normalize(line.slice(negate ? 1 : 0).trim()).replace(/^\/+|\/+$/g, "");
    const body = pattern
      .split("**/")
      .map((part) =>
        part
          .split("*")
          .map((s) => s.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("?", "[^/]"))
          .join("[^/]*"),
      )
      .join("(?:.*/)?");
    if (new RegExp(`^${body}(?:/.*)?$`).test(path)) ignored = !negate;
  }
  return ignored;
}

// --- Reading docker-compose.yml: the block-style subset compose files use ------------

export type Yaml = string | Yaml[] | { [key: string]: Yaml };
interface YamlLine {
  indent: number;
  text: string;
}

function parseYaml(text: string): Yaml {
  const lines = text
    .split("\n")
    .map((raw) => ({ indent: raw.search(/\S|$/), text: withoutComment(raw).trim() }))
    .filter((l) => l.text !== "");
  const [value, next] = yamlBlock(lines, 0, lines[0]?.indent ?? 0);
  if (next !== lines.length) throw new Error(`YAML not understood: "${lines[next]?.text}"`);
  return value;
}

function withoutComment(line: string): string {
  let quote = "";
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) quote = c === quote ? "" : quote;
    else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] ?? ""))) return line.slice(0, i);
  }
  return line;
}

const isItem = (line: YamlLine | undefined) => line?.text === "-" || line?.text.startsWith("- ");

function yamlBlock(lines: YamlLine[], start: number, indent: number): [Yaml, number] {
  let i = start;
  if (isItem(lines[i])) {
    const items: Yaml[] = [];
    for (let line = lines[i]; line?.indent === indent && isItem(line); line = lines[i]) {
      const rest = line.text.slice(1).trim();
      if (rest === "") {
        const [value, next] = yamlNested(lines, i + 1, indent);
        items.push(value);
        i = next;
      } else if (/^[\w.-]+:(\s|$)/.test(rest)) {
        // `- key: value` opens a map whose keys line up with `key`.
        const inner = indent + line.text.indexOf(rest);
        lines[i] = { indent: inner, text: rest };
        const [value, next] = yamlBlock(lines, i, inner);
        items.push(value);
        i = next;
      } else {
        items.push(yamlScalar(rest));
        i++;
      }
    }
    return [items, i];
  }
  const map: { [key: string]: Yaml } = {};
  for (let line = lines[i]; line?.indent === indent; line = lines[i]) {
    const [, key, rest = ""] =
      /^("[^"]*"|'[^']*'|[^\s:][^:]*?):(?:\s+(.*))?$/.exec(line.text) ?? [];
    if (key === undefined) throw new Error(`YAML not understood: "${line.text}"`);
    if (rest.trim() !== "") {
      map[yamlScalar(key) as string] = yamlScalar(rest.trim());
      i++;
    } else {
      const [value, next] = yamlNested(lines, i + 1, indent);
      map[yamlScalar(key) as string] = value;
      i = next;
    }
  }
  return [map, i];
}

/** The value under a key or a bare `-`: deeper lines, or a list at the key's own indent. */
function yamlNested(lines: YamlLine[], start: number, indent: number): [Yaml, number] {
  const next = lines[start];
  if (next && (next.indent > indent || (next.indent === indent && isItem(next)))) {
    return yamlBlock(lines, start, next.indent);
  }
  return ["", start];
}

function yamlScalar(text: string): Yaml {
  if (text.startsWith("[") && text.endsWith("]")) {
    const inner = text.slice(1, -1).trim();
    return inner === "" ? [] : (inner.match(/"[^"]*"|'[^']*'|[^,\s][^,]*/g) ?? []).map(yamlScalar);
  }
  if (/^[{|>&*!]/.test(text)) throw new Error(`YAML feature not supported here: ${text}`);
  if (text.startsWith('"')) return JSON.parse(text) as string;
  if (text.startsWith("'")) return text.slice(1, -1).replaceAll("''", "'");
  return text.trim();
}

export function yamlMap(value: Yaml | undefined, what: string): { [key: string]: Yaml } {
  if (value && typeof value === "object" && !Array.isArray(value)) return value;
  throw new Error(`${what} is not a map`);
}

/** A command or list as words: `"a b"` and `["a", "b"]` both give ["a", "b"]. */
export const words = (value: Yaml | undefined): string[] =>
  typeof value === "string"
    ? value.split(/\s+/).filter(Boolean)
    : Array.isArray(value)
      ? value.flatMap((v) => (typeof v === "string" ? [v] : []))
      : [];

export const hasPair = (list: string[], flag: string, value: string) =>
  list.some((w, i) => w === flag && list[i + 1] === value);

export function environmentOf(value: Yaml | undefined): Record<string, string> {
  if (Array.isArray(value)) {
    return Object.fromEntries(
      words(value).map((kv) => [kv.split("=")[0], kv.slice(kv.indexOf("=") + 1)]),
    );
  }
  if (value === undefined || value === "") return {};
  const map = yamlMap(value, "environment");
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, String(v)]));
}

/** Compose durations: "30s", "1m30s", "500ms". Unset: Docker's default stop timeout, 10 s. */
export function durationMs(value: Yaml | undefined): number {
  if (value === undefined) return 10_000;
  const m = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(String(value));
  if (!m) throw new Error(`not a duration: ${String(value)}`);
  const [h = 0, min = 0, s = 0, ms = 0] = m.slice(1).map((n) => Number(n ?? 0));
  return ((h * 60 + min) * 60 + s) * 1000 + ms;
}

export const parseComposeFile = (files: DeployFiles) => parseYaml(files.compose);

export function composeServices(files: DeployFiles) {
  const services = yamlMap(yamlMap(parseComposeFile(files), "the file").services, "services");
  const service = (name: string) => yamlMap(services[name], `service ${name}`);
  const names = Object.keys(services);
  const redisName = names.find((n) => String(service(n).image ?? "").startsWith("redis:"));
  const botName = names.find((n) => service(n).build !== undefined);
  if (!redisName || !botName) throw new Error("compose needs a redis: service and a built bot");
  return { redisName, redis: service(redisName), bot: service(botName) };
}

// --- The contract, each part with files that break it ----------------------------------
