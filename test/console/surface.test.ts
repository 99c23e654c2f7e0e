import { Writable } from "node:stream";
import { expect, it } from "vitest";
import { MAX_MESSAGE_LENGTH } from "../../adapters/console/limits.ts";
import { createConsoleSurface } from "../../adapters/console/surface.ts";
import { ConsoleOutput } from "../../adapters/console/terminal.ts";
import { replySurfaceContract, type SurfaceUnderTest } from "../support/reply-surface-contract.ts";

/** The piped console output, with its fakes; `close` stops them. */
async function open(): Promise<SurfaceUnderTest> {
  const writes: string[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString());
      done();
    },
  });
  const surface = createConsoleSurface(
    new ConsoleOutput(out, { styled: false }),
    () => "thinking…",
  );
  return {
    surface,
    textCalls: () => writes.length,
    // A message that will not change again ends its line (console.test.ts shows why).
    messages: () => [writes.join("").replace(/\n$/, "")],
    close: async () => undefined,
  };
}

replySurfaceContract(
  "piped console output",
  open,
  // Piped output is the Markdown verbatim, and only ever grows.
  ["**bold**", "**bold** and `code`", "**bold** and `code` [done](https://example.com)"],
);

it("tells the engine the terminal's longest message, so answers split where the platform would", async () => {
  const under = await open();
  try {
    expect(under.surface.limits.maxMessageLength).toBe(MAX_MESSAGE_LENGTH);
  } finally {
    await under.close();
  }
});
