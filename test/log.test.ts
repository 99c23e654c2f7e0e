import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../src/errors.ts";
import { createLogger } from "../src/log.ts";

/** A JSON logger whose lines are kept, parsed. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    level: "info",
    secrets: ["s3cret-pass"],
    pretty: false,
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        done();
      },
    }),
  });
  return { log, lines };
}

describe("the logger", () => {
  it("says an error's cause once: the message as the error has it, the cause beside it", () => {
    const { log, lines } = capturingLogger();
    const cause = new Error("WRONGPASS invalid username-password pair s3cret-pass");
    log.fatal({ err: new StoreUnavailableError("open", cause) }, "chatbot-bridge stopped");
    const err = lines[0]?.err as { message: string; cause?: { message: string } };
    expect(err.message).toBe(
      "store open failed: WRONGPASS invalid username-password pair [redacted]",
    );
    expect(err.cause?.message).toBe("WRONGPASS invalid username-password pair [redacted]");
  });
});
