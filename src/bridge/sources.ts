import { z } from "zod";

// The spec leaves the shape of related_docs open; items with a title or a URL are shown,
// anything else is ignored rather than guessed at.
const sourceSchema = z.looseObject({
  title: z.string().trim().min(1).max(200).optional().catch(undefined),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2_000)
    .optional()
    .catch(undefined),
});

const MAX_SOURCES = 5;

/** The Markdown list of sources that ends an answer, or "" when there is none to show. */
export function formatSources(relatedDocs: readonly unknown[]): string {
  const lines: string[] = [];
  for (const doc of relatedDocs) {
    const parsed = sourceSchema.safeParse(doc);
    if (!parsed.success) continue;
    const { title, url } = parsed.data;
    if (!title && !url) continue;
    const label = escapeMarkdown(title ?? url ?? "");
    lines.push(url ? `- [${label}](<${url.replaceAll(">", "%3E")}>)` : `- ${label}`);
    if (lines.length === MAX_SOURCES) break;
  }
  return lines.length ? `\n\n**Sources**\n${lines.join("\n")}` : "";
}

/** Backslash-escapes Markdown punctuation so a title shows as the text it is. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+\-.!|~]/g, "\\$&").replace(/\s+/g, " ");
}
