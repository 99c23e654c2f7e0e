import { describe, expect, it } from "vitest";
import {
  safeMarkdown,
  safeMarkdownSoFar,
  streamText,
} from "../../adapters/slack/stream-markdown.ts";
import { viewMarkdown } from "../support/fake-slack-view.ts";
import { HOSTILE, HOSTILE_LITERALS, SAMPLES } from "./samples.ts";

describe("Markdown for a native stream", () => {
  it("grows by appending for nearly every prefix, and ends exactly at the whole answer", () => {
    for (const sample of SAMPLES) {
      let streamed = "";
      let restarts = 0;
      for (let end = 0; end <= sample.length; end++) {
        const next = safeMarkdownSoFar(sample.slice(0, end));
        if (!next.startsWith(streamed)) restarts++;
        streamed = next;
      }
      expect(safeMarkdown(sample).startsWith(streamed)).toBe(true);
      // A construct closing on a later line may change earlier text: rare, and then the
      // surface rewrites the message by chat.update instead of appending.
      expect(restarts).toBeLessThanOrEqual(1);
    }
  });

  it("keeps hostile text literal in Markdown too", () => {
    const markdown = safeMarkdown(HOSTILE);
    const view = viewMarkdown(markdown);
    expect(view.pings).toEqual([]);
    expect(view.disguised).toEqual([]);
    for (const literal of HOSTILE_LITERALS) expect(view.visible).toContain(literal);
  });

  it("ends a message's stream with its note, escaped", () => {
    expect(streamText({ markdown: "Some *text*", note: "⚠️ cut_off [1]" }, true)).toBe(
      "Some *text*\n\n⚠️ cut\\_off \\[1\\]",
    );
    expect(streamText({ markdown: "open `code", note: undefined }, false)).toBe("open ");
  });
});
