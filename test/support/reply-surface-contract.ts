import { afterEach, describe, expect, it } from "vitest";
import type { ReplySurface } from "../../src/ports.ts";

/** A reply surface over a fake platform, and what the platform shows. */
export interface SurfaceUnderTest {
  surface: ReplySurface;
  /** Platform calls so far that carried an answer's text (no typing, no status). */
  textCalls(): number;
  /** The text of each message the surface put on screen, as the platform holds it. */
  messages(): string[];
  close(): Promise<void>;
}

/**
 * What every reply surface (Slack, Telegram, the console) promises the reply engine: each
 * request is one platform call, and the platform shows exactly the text the engine rendered
 * (the surface keeps no copy of the answer and renders nothing again). `texts` are platform
 * texts that a second rendering would change (Markdown markers, markup as text).
 */
export function replySurfaceContract(
  name: string,
  start: () => Promise<SurfaceUnderTest>,
  texts: readonly [string, string, string],
): void {
  describe(`${name} as the reply engine's surface`, () => {
    let under: SurfaceUnderTest | undefined;
    afterEach(async () => {
      await under?.close();
      under = undefined;
    });

    it("posts, edits and ends a message with one call each, showing exactly the text given", async () => {
      under = await start();
      const { surface } = under;
      const [first, second, last] = texts;
      const ref = await surface.send({ call: "post", text: first, final: false });
      expect(under.textCalls()).toBe(1);
      expect(under.messages()).toEqual([first]);
      const edited = await surface.send({ call: "edit", ref, text: second, final: false });
      expect(under.textCalls()).toBe(2);
      expect(under.messages()).toEqual([second]);
      await surface.send({ call: "edit", ref: edited, text: last, final: true });
      expect(under.textCalls()).toBe(3);
      expect(under.messages()).toEqual([last]);
    });

    it("streams natively where it can: one call to start, append and end, the text exact", async () => {
      under = await start();
      const { surface } = under;
      if (!surface.canStream?.()) return;
      const [first, second, last] = texts;
      const ref = await surface.send({ call: "stream", text: first });
      await surface.send({ call: "append", ref, text: second });
      await surface.send({ call: "end", ref, text: last });
      expect(under.textCalls()).toBe(3);
      expect(under.messages()).toEqual([`${first}${second}${last}`]);
    });

    it("stops a stream and then lets its whole text be replaced", async () => {
      under = await start();
      const { surface } = under;
      if (!surface.canStream?.()) return;
      const [first, , last] = texts;
      const ref = await surface.send({ call: "stream", text: first });
      const stopped = await surface.send({ call: "stop", ref });
      await surface.send({ call: "edit", ref: stopped, text: last, final: true });
      expect(under.messages()).toEqual([last]);
    });
  });
}
