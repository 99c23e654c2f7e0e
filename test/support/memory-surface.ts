import { MessageGoneError, RateLimitedError } from "../../src/errors.ts";
import type {
  CallBudget,
  MessageRef,
  NoticeOptions,
  Renderer,
  ReplySurface,
  SendRequest,
  SurfaceLimits,
} from "../../src/ports.ts";

export interface SurfaceCall {
  kind: "post" | "edit" | "notice";
  id: number;
  text: string;
  at: number;
  final: boolean;
}

/** Shows text as it is: what a test asserts is exactly what the engine sent. */
export const plainRenderer: Renderer = {
  render: (markdown) => markdown,
  note: (text) => text,
  measure: (rendered) => rendered.length,
};

/**
 * A reply surface that keeps what a person would see (each message's current text, the
 * notices) and every call with its time, and that can answer like a platform does: 429
 * with a retry-after, or "message gone". It also records calls made sooner than its own
 * minimum interval, so a test can prove the engine kept the pace.
 */
export class MemorySurface implements ReplySurface {
  readonly renderer: Renderer;
  readonly limits: SurfaceLimits;
  readonly #budget?: CallBudget;
  readonly messages: string[] = [];
  readonly notices: { text: string; private: boolean }[] = [];
  readonly calls: SurfaceCall[] = [];
  readonly rateLimited: SurfaceCall[] = [];
  typing = 0;
  #rateLimits: number[] = [];
  #gone = new Set<number>();
  #pausedUntil = 0;

  constructor(
    options: {
      limits?: Partial<SurfaceLimits>;
      renderer?: Renderer;
      budget?: CallBudget;
      typing?: boolean;
    } = {},
  ) {
    this.renderer = options.renderer ?? plainRenderer;
    this.limits = {
      maxMessageLength: options.limits?.maxMessageLength ?? 4_000,
      minEditIntervalMs: options.limits?.minEditIntervalMs ?? 0,
    };
    if (options.budget) this.#budget = options.budget;
    if (options.typing) {
      this.showTyping = async () => {
        this.typing++;
      };
    }
  }

  showTyping?: () => Promise<void>;

  /** The next calls answer 429 with these retry-after values, one per call. */
  failNextWithRateLimit(...retryAfterMs: number[]): void {
    this.#rateLimits.push(...retryAfterMs);
  }

  /** 429s asked for by failNextWithRateLimit that no call has met yet. */
  get rateLimitsLeft(): number {
    return this.#rateLimits.length;
  }

  /** A person deletes message `id`: editing it fails as on a platform. */
  deleteMessage(id: number): void {
    this.#gone.add(id);
  }

  get edits(): number {
    return this.calls.filter((c) => c.kind === "edit").length;
  }

  /** The answer as a person reads it: every message in order, joined. */
  get transcript(): string {
    return this.messages.join("");
  }

  budgetFor(): CallBudget | undefined {
    return this.#budget;
  }

  async send(request: SendRequest): Promise<MessageRef> {
    if (request.call === "post") {
      this.#enter("post", this.messages.length, request.text, request.final);
      this.messages.push(request.text);
      return this.messages.length - 1;
    }
    if (request.call !== "edit") throw new Error(`no ${request.call} here`);
    const id = request.ref as number;
    this.#enter("edit", id, request.text, request.final);
    if (this.#gone.has(id)) throw new MessageGoneError();
    this.messages[id] = request.text;
    return id;
  }

  async notice(rendered: string, options?: NoticeOptions): Promise<void> {
    this.calls.push({ kind: "notice", id: -1, text: rendered, at: performance.now(), final: true });
    this.notices.push({ text: rendered, private: options?.private ?? false });
  }

  #enter(kind: "post" | "edit", id: number, text: string, final: boolean): void {
    const call = { kind, id, text, at: performance.now(), final };
    if (call.at < this.#pausedUntil) this.rateLimited.push(call);
    const retryAfter = this.#rateLimits.shift();
    if (retryAfter !== undefined) {
      this.#pausedUntil = call.at + retryAfter;
      throw new RateLimitedError(retryAfter);
    }
    this.calls.push(call);
  }

  /** Gaps between consecutive post/edit calls that are shorter than the minimum interval. */
  tooSoon(toleranceMs = 2): number[] {
    const calls = this.calls.filter((c) => c.kind !== "notice");
    const gaps: number[] = [];
    for (let i = 2; i < calls.length; i++) {
      const gap = (calls[i]?.at ?? 0) - (calls[i - 1]?.at ?? 0);
      if (gap + toleranceMs < this.limits.minEditIntervalMs) gaps.push(gap);
    }
    return gaps;
  }
}
