import type { MessageRef, ReplySurface, SendRequest, SurfaceLimits } from "../../src/ports.ts";
import { plainRenderer } from "../support/memory-surface.ts";
import { STAMP } from "./stamp-backend.ts";
import { epochMs } from "./stats.ts";

/**
 * An in-memory reply surface that keeps nothing but what the bench needs: the moment the
 * first text arrives, read against the stamp the backend wrote into it. Leaner than
 * MemorySurface (which keeps every call), so memory per answer is the pipeline's own.
 */
export class StampSurface implements ReplySurface {
  readonly renderer = plainRenderer;
  readonly limits: SurfaceLimits;
  calls = 0;
  notices = 0;
  /** ms from the backend writing the first chunk to this surface receiving it; NaN until then. */
  firstTextLatencyMs = Number.NaN;
  /** Whether the answer's final text arrived. */
  finished = false;
  readonly #clockOffsetMs: number;
  readonly #onFirstText: (() => void) | undefined;

  /** `clockOffsetMs`: the backend's clock minus this process's (see measureClockOffset). */
  constructor(limits: SurfaceLimits, clockOffsetMs: number, onFirstText?: () => void) {
    this.limits = limits;
    this.#clockOffsetMs = clockOffsetMs;
    this.#onFirstText = onFirstText;
  }

  async send(request: SendRequest): Promise<MessageRef> {
    if (request.call === "post" || request.call === "edit") {
      this.#receive(request.text, request.final);
    }
    return this.calls;
  }

  async notice(): Promise<void> {
    this.notices++;
  }

  #receive(rendered: string, final: boolean): void {
    const at = epochMs();
    this.calls++;
    if (final) this.finished = true;
    if (!Number.isNaN(this.firstTextLatencyMs)) return;
    const stamp = STAMP.exec(rendered)?.[1];
    if (stamp !== undefined) {
      this.firstTextLatencyMs = at - (Number(stamp) - this.#clockOffsetMs);
      this.#onFirstText?.();
    }
  }
}
