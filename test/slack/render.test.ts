import { describe, expect, it } from "vitest";
import { escapeMrkdwn, slackTextToPlain } from "../../adapters/slack/escape.ts";
import { renderMrkdwn, slackRenderer } from "../../adapters/slack/render.ts";
import { viewMrkdwn } from "../support/fake-slack-view.ts";
import { prefixEnds } from "../support/prefixes.ts";
import { HOSTILE, HOSTILE_LITERALS, SAMPLES } from "./samples.ts";

const ZWSP = /\u200b/g;
const LINK_TOKEN = /<(?:https?:\/\/|mailto:)[^\s<>|]+(?:\|[^<>]*)?>/g;
const WORD = /[\p{L}\p{N}]/u;

/**
 * What in a mrkdwn text would not pair up in Slack: an odd number of code fences, a backtick
 * or formatting marker without its partner on the line, or a `<`/`>` that is not one of our
 * link tokens (the only `<…>` we write) or a quote marker. Literal characters are either
 * inside a word or fenced by zero-width spaces, so they are not markers.
 */
function unbalanced(mrkdwn: string): string[] {
  const problems: string[] = [];
  if ((mrkdwn.match(/```/g) ?? []).length % 2 !== 0) problems.push("code fence");
  const outsideBlocks = mrkdwn.replace(/```[\s\S]*?```/g, "");
  for (const line of outsideBlocks.split("\n")) {
    const unquoted = line.replace(/^> ?/, "");
    const noLiteralTicks = unquoted.replace(/\u200b`\u200b/g, "");
    if ((noLiteralTicks.match(/`/g) ?? []).length % 2 !== 0) problems.push(`backtick: ${line}`);
    const plain = noLiteralTicks.replace(/`[^`]*`/g, "").replace(LINK_TOKEN, "");
    if (/[<>]/.test(plain)) problems.push(`angle bracket: ${line}`);
    for (const marker of ["*", "_", "~"]) {
      let count = 0;
      for (let i = 0; i < plain.length; i++) {
        if (plain[i] !== marker) continue;
        const before = plain[i - 1] ?? "";
        const after = plain[i + 1] ?? "";
        if (before === "\u200b" && after === "\u200b") continue;
        if (WORD.test(before) && WORD.test(after)) continue;
        count++;
      }
      if (count % 2 !== 0) problems.push(`${marker}: ${line}`);
    }
  }
  return problems;
}

describe("Markdown to mrkdwn", () => {
  it("renders each prefix of real answers that matters with balanced markup", () => {
    expect.hasAssertions();
    for (const sample of SAMPLES) {
      for (const end of prefixEnds(sample)) {
        const rendered = renderMrkdwn(sample.slice(0, end));
        const problems = unbalanced(rendered);
        if (problems.length > 0) {
          throw new Error(`prefix ${end} of a sample: ${problems.join("; ")}\n${rendered}`);
        }
      }
      expect(unbalanced(renderMrkdwn(sample))).toEqual([]);
    }
  });

  it("formats what mrkdwn can show and keeps what it cannot readable", () => {
    const rendered = renderMrkdwn(SAMPLES[1] ?? "");
    expect(rendered).toContain("*Setting up the _widget_*");
    expect(rendered).toContain(
      "1. Install it:\n```\nnpm install widget &amp;&amp; widget --init\n```",
    );
    expect(rendered).toContain(
      "    ◦ the `host` (see <https://example.com/docs?a=1&amp;b=2|the docs>)",
    );
    expect(rendered).toContain("    ◦ the ~port~ socket, e.g. `&lt;path&gt;`");
    expect(rendered).toContain("        ▪ nested: _deep *bold* text_");
    expect(rendered).toContain("    ☑ done already");
    expect(rendered).toContain(
      "> Note: values like 5 \u200b*\u200b 3 and snake_case_names stay as written.",
    );
    expect(rendered).toContain(
      "```\nOption | Default   | Meaning\n-------+-----------+----------------\nhost   | localhost | where to listen\nport   | 8080      | the port\n```",
    );
    expect(rendered).toContain("<https://example.com/logo.png|logo>");
    expect(renderMrkdwn("**bold\nacross lines**")).toBe("*bold*\n*across lines*");
  });

  it("shows hostile backend text literally: no pings, no disguised links, no markup", () => {
    const rendered = renderMrkdwn(HOSTILE);
    const view = viewMrkdwn(rendered);
    expect(view.pings).toEqual([]);
    expect(view.disguised).toEqual([]);
    for (const literal of HOSTILE_LITERALS)
      expect(view.visible.replace(ZWSP, "")).toContain(literal);
    // The disguised Markdown link shows its text and, beside it, where it really goes.
    expect(rendered).toContain("https://bank.example (<https://evil.example>)");
    expect(renderMrkdwn("[click](javascript:alert(1))")).toBe("click (javascript:alert(1))");
  });

  it("escapes notes and measures in characters", () => {
    expect(slackRenderer.note("⚠️ <!channel> & co")).toBe("⚠️ &lt;!channel&gt; &amp; co");
    expect(slackRenderer.measure("héllo")).toBe(5);
    expect(escapeMrkdwn("a<b>&c")).toBe("a&lt;b&gt;&amp;c");
  });

  it("reads a person's Slack text as plain words for the chatbot", () => {
    expect(
      slackTextToPlain(
        "<@UBOT> compare &lt;b&gt; &amp; <https://x.example|this> with <#C1|general>, cc <@U2>",
        "UBOT",
      ),
    ).toBe("compare <b> & this (https://x.example) with #general, cc @U2");
  });

  it("keeps a heading with bold words one bold run (mrkdwn cannot nest it)", () => {
    expect(renderMrkdwn("# **Warning** read this")).toBe("*Warning read this*");
  });
});
