import { describe, expect, it } from "vitest";
import {
  MarkdownStream,
  safeMarkdown,
  settledMarkdown,
} from "../../adapters/slack/stream-markdown.ts";
import { viewMarkdown } from "../support/fake-slack-view.ts";
import { prefixEnds, prefixesOf } from "../support/prefixes.ts";
import { HOSTILE, HOSTILE_LITERALS, HOSTILE_STREAMS, SAMPLES } from "./samples.ts";

/** The most of a growing line a stream may hold back behind an opener (issue 13: ~80). */
const BOUND = 80;

/**
 * The characters a person reads, markup and white space left out. Making Markdown safe only
 * adds escapes or rearranges link syntax, so what a stream shows of a text has at least as
 * many of them as the part of the text it shows.
 */
const readable = (text: string) => text.replace(/[\s\\`*_~[\]()<>!]/g, "").length;

interface Streamed {
  /** Prefix lengths whose text did not extend the text before it. */
  restarts: number[];
  /** The longest hold seen: readable characters of the raw text not shown yet. */
  longestHold: number;
  /** States that would ping someone or disguise a link. */
  unsafe: string[];
  last: string;
  final: string;
}

/**
 * Streams `text` as the slowest backend would send it, one character at a time, at least
 * wherever that may change what is shown (see prefixEnds); `everyState`: checks what a person
 * would see at each step, not only at the end.
 */
function streamEveryPrefix(text: string, everyState = true): Streamed {
  const stream = new MarkdownStream();
  const result: Streamed = { restarts: [], longestHold: 0, unsafe: [], last: "", final: "" };
  const check = (shown: string) => {
    const view = viewMarkdown(shown);
    if (view.pings.length > 0 || view.disguised.length > 0) result.unsafe.push(shown);
  };
  for (const end of prefixEnds(text)) {
    const prefix = text.slice(0, end);
    const shown = stream.text({ markdown: prefix }, false);
    if (!shown.startsWith(result.last)) result.restarts.push(end);
    result.longestHold = Math.max(result.longestHold, readable(prefix) - readable(shown));
    if (everyState && shown !== result.last) check(shown);
    result.last = shown;
  }
  result.final = stream.text({ markdown: text }, true);
  check(result.final);
  return result;
}

describe("Markdown for a native stream", () => {
  it.each(
    [
      // Hostile text is checked at every step; the (benign) samples only at their end.
      ...SAMPLES.map((text) => ({ text, everyState: text === HOSTILE })),
      ...HOSTILE_STREAMS.map((text) => ({ text, everyState: true })),
    ].map((c) => ({ ...c, start: c.text.slice(0, 40) })),
  )(
    "streams each prefix that matters by appending, holding back at most ~80 characters: $start",
    ({ text, everyState }) => {
      const streamed = streamEveryPrefix(text, everyState);
      expect(streamed.restarts).toEqual([]);
      expect(streamed.longestHold).toBeLessThanOrEqual(BOUND);
      expect(streamed.final.startsWith(streamed.last)).toBe(true);
      // Every state a person saw, and the last, is safe.
      expect(streamed.unsafe).toEqual([]);
    },
  );

  it("shows a construct that closed in time as written, and one that closed late as literal text", () => {
    const inTime = streamEveryPrefix("Read [the docs](https://example.com/docs) first.");
    expect(inTime.final).toBe("Read [the docs](https://example.com/docs) first.");
    const late = "x".repeat(BOUND + 10);
    const tooLate = streamEveryPrefix(`Read [the docs ${late}](https://example.com/docs).`);
    expect(tooLate.final).toBe(`Read \\[the docs ${late}](https://example.com/docs).`);
  });

  it("holds a posted message's last line back by at most ~80 characters too", () => {
    const holds = HOSTILE_STREAMS.map((text) => {
      let longest = 0;
      for (const prefix of prefixesOf(text)) {
        longest = Math.max(longest, readable(prefix) - readable(settledMarkdown(prefix)));
      }
      return longest;
    });
    expect(Math.max(...holds)).toBeLessThanOrEqual(BOUND);
  });

  it("keeps hostile text literal in Markdown too", () => {
    const markdown = safeMarkdown(HOSTILE);
    const view = viewMarkdown(markdown);
    expect(view.pings).toEqual([]);
    expect(view.disguised).toEqual([]);
    for (const literal of HOSTILE_LITERALS) expect(view.visible).toContain(literal);
  });

  it("sends prose as written, and makes each marker alone in prose safe", () => {
    const prose = "Plain prose, with *emphasis*, `code`, 5 - 3 = 2 and (an aside): all fine.";
    expect(safeMarkdown(prose)).toBe(prose);
    const cases: [string, string][] = [
      ["Tom & Jerry", "Tom \\& Jerry"],
      ["if a < b then", "if a \\< b then"],
      ["ping <!channel> now", "ping \\<!channel\\> now"],
      ["see [the docs](javascript:alert(1)) here", "see the docs (javascript\\:alert\\(1\\)) here"],
    ];
    for (const [text, safe] of cases) expect(safeMarkdown(text), text).toBe(safe);
    for (const text of ["mail ana@example.org", "go to www.example.com", "open https://e.com"]) {
      expect(viewMarkdown(safeMarkdown(text)).disguised, text).toEqual([]);
    }
  });

  it("ends a message's stream with its note, escaped", () => {
    expect(
      new MarkdownStream().text({ markdown: "Some *text*", note: "⚠️ cut_off [1]" }, true),
    ).toBe("Some *text*\n\n⚠️ cut\\_off \\[1\\]");
    expect(new MarkdownStream().text({ markdown: "open `code" }, false)).toBe("open ");
  });

  it("keeps Slack's tokens in code inert, and code without them as written", () => {
    const hostile = "Run `<!channel>` or\n\n```\n<@U1|boss> <https://evil.example|bank>\n```";
    const view = viewMarkdown(streamEveryPrefix(hostile).final);
    expect(view.pings).toEqual([]);
    expect(view.disguised).toEqual([]);
    const html = "```html\n<!DOCTYPE html>\n<div>a &amp; b</div>\n```";
    expect(safeMarkdown(html)).toBe(html);
  });

  it("tells whether its last text shows the answer as written", () => {
    const late = `Run \`npm install ${"x".repeat(BOUND + 10)}\` now.`;
    const stream = new MarkdownStream();
    for (let end = 0; end <= late.length; end++)
      stream.text({ markdown: late.slice(0, end) }, false);
    expect(stream.endsAsWritten({ markdown: late })).toBe(false);
    // An opener shown as written that never closed reads the same either way.
    const lone = `a lone [ here ${"x".repeat(BOUND + 10)} and no more.`;
    const open = new MarkdownStream();
    for (let end = 0; end <= lone.length; end++) open.text({ markdown: lone.slice(0, end) }, false);
    expect(open.endsAsWritten({ markdown: lone })).toBe(true);
    expect(new MarkdownStream().endsAsWritten({ markdown: late })).toBe(true);
  });
});
