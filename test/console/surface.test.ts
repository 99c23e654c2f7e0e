import { Writable } from "node:stream";
import { createConsoleSurface } from "../../adapters/console/surface.ts";
import { ConsoleOutput } from "../../adapters/console/terminal.ts";
import { replySurfaceContract } from "../support/reply-surface-contract.ts";

replySurfaceContract(
  "piped console output",
  async () => {
    const writes: string[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        writes.push(chunk.toString());
        done();
      },
    });
    const surface = createConsoleSurface(new ConsoleOutput(out, { styled: false }));
    return {
      surface,
      textCalls: () => writes.length,
      messages: () => [writes.join("")],
      close: async () => undefined,
    };
  },
  // Piped output is the Markdown verbatim, and only ever grows.
  ["**bold**", "**bold** and `code`", "**bold** and `code` [done](https://example.com)"],
);
