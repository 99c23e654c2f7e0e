import { describe, expect, it } from "vitest";
import { labelDisguisesTarget } from "../../src/markdown/link-label.ts";

describe("labelDisguisesTarget", () => {
  it.each([
    ["paypal.com", "https://evil.example/login"],
    ["paypal.com.", "https://evil.example"],
    ["support@paypal.com", "https://evil.example"],
    ["p\u0430ypal.com", "https://evil.example"],
    ["Log in at paypal.com", "https://evil.example"],
    ["https://bank.example", "https://evil.example"],
    ["p\u0430ypal.com", "https://paypal.com"],
  ])("catches %s pointing at %s", (label, target) => {
    expect(labelDisguisesTarget(label, target)).toBe(true);
  });

  it.each([
    ["the Chatbot Backend API", "https://example.com/docs"],
    ["example.com", "https://www.example.com/docs"],
    ["docs at example.com", "https://example.com/docs"],
    ["version 1.25", "https://example.com"],
    ["mail us", "mailto:team@example.com"],
  ])("lets %s through for %s", (label, target) => {
    expect(labelDisguisesTarget(label, target)).toBe(false);
  });
});
