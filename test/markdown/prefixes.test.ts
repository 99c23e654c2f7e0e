import { describe, expect, it } from "vitest";
import { prefixEnds } from "../support/prefixes.ts";

describe("the prefixes a render test tries", () => {
  it("keeps the ends around syntax, through a tag's name and inside a character of more than one unit", () => {
    const ends = prefixEnds("Some **bold** words\n- </pre> 👩‍💻 end", { stride: 1_000 });
    // Around `**` and after the letter that makes it open; not inside the plain words.
    for (const end of [5, 6, 7, 8]) expect(ends).toContain(end);
    expect(ends).not.toContain(2);
    // A list marker and the space after it; every end through `</pre`.
    for (const end of [20, 21, 22, 23, 24, 25, 26, 27]) expect(ends).toContain(end);
    // 👩‍💻 is five code units in one grapheme: every end around and inside it.
    const at = "Some **bold** words\n- </pre> ".length;
    for (let end = at; end <= at + 5; end++) expect(ends).toContain(end);
    expect(ends.at(-1)).toBe(at + "👩‍💻 end".length);
  });

  it("tries every stride-th end besides, and only whole characters when asked", () => {
    const prose = "plain words and nothing else in them at all";
    expect(prefixEnds(prose, { stride: 10 })).toEqual([0, 10, 20, 30, 40, prose.length]);
    const emoji = "a😀b";
    expect(prefixEnds(emoji, { stride: 1 })).toEqual([0, 1, 2, 3, 4]);
    expect(prefixEnds(emoji, { stride: 1, wholeCharacters: true })).toEqual([0, 1, 3, 4]);
  });
});
