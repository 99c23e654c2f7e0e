import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { envExample, undocumented, withConfigTable } from "./config-reference.ts";

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
const reference = resolve(root, "docs/configuration.md");
writeFileSync(reference, withConfigTable(readFileSync(reference, "utf8")));
writeFileSync(resolve(root, ".env.example"), envExample());
process.stdout.write("wrote docs/configuration.md's table and .env.example\n");
