import { describe, expect, it } from "vitest";
import { sendNotice } from "../../src/reply/notice.ts";
import { MemorySurface } from "../support/memory-surface.ts";

describe("sendNotice", () => {
  it("splits a long notice below the platform's limit at line breaks", async () => {
    const surface = new MemorySurface({ limits: { maxMessageLength: 100 } });
    const lines = Array.from({ length: 12 }, (_, i) => `• lead ${i}: name · phone · e-mail`);
    await sendNotice(surface, lines.join("\n"), { private: true });
    expect(surface.notices.length).toBeGreaterThan(1);
    for (const notice of surface.notices) {
      expect(notice.text.length).toBeLessThanOrEqual(100);
      expect(notice.private).toBe(true);
    }
    expect(surface.notices.map((n) => n.text).join("\n")).toBe(lines.join("\n"));
  });
});
