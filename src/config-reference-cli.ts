import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  configTable,
  envExample,
  readmeConfigTable,
  undocumented,
  withWrittenTable,
} from "./config-reference.ts";

/**
 * `npm run docs:config`: writes the configuration table of docs/configuration.md and
 * `.env.example` from src/config-docs.ts and the schema; refuses while a variable of the
 * schema is not described there.
 */
const root = resolve(import.meta.dirname, "..");
const { missing, unknown } = undocumented();
if (missing.length > 0 || unknown.length > 0) {
  process.stderr.write(
    `src/config-docs.ts: describe ${missing.join(", ") || "nothing more"}; drop ${unknown.join(", ") || "nothing"}\n`,
  );
  process.exit(1);
}
for (const [path, written] of [
  ["docs/configuration.md", configTable()],
  ["README.md", readmeConfigTable()],
] as const) {
  const file = resolve(root, path);
  writeFileSync(file, withWrittenTable(readFileSync(file, "utf8"), written));
}
writeFileSync(resolve(root, ".env.example"), envExample());
process.stdout.write("wrote the tables of docs/configuration.md and README.md, and .env.example\n");
