import type { ChatCall } from "./chat.ts";

/** One request as the simulator saw it. Never holds the Authorization value. */
export interface SimRequest {
  requestId: string;
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  /** The Authorization header carried the right key. */
  authorized: boolean;
  route: "chat" | "leads" | undefined;
  /** The status sent; undefined while no headers went out (or never will: `#stall-headers`). */
  status: number | undefined;
  /** "aborted": the connection closed before the response ended (client gone, `#cut`, close()). */
  outcome: "pending" | "completed" | "aborted";
  /** The parsed body of a chat request that passed validation. */
  chat: ChatCall | undefined;
  at: Date;
}

/**
 * The last `limit` requests (older ones dropped, so benchmarks do not grow memory), plus
 * hit counts per path that are never dropped.
 */
export class RequestLog {
  #entries: SimRequest[] = [];
  readonly #hits = new Map<string, number>();
  #open = 0;

  constructor(private readonly limit: number) {}

  get entries(): readonly SimRequest[] {
    return this.#entries;
  }

  /** Responses not yet ended: streams in progress, stalls. */
  get open(): number {
    return this.#open;
  }

  begin(entry: Omit<SimRequest, "status" | "outcome" | "chat" | "route">): SimRequest {
    const record: SimRequest = {
      ...entry,
      route: undefined,
      status: undefined,
      outcome: "pending",
      chat: undefined,
    };
    this.#entries.push(record);
    if (this.#entries.length > this.limit) this.#entries = this.#entries.slice(-this.limit);
    this.#hits.set(entry.path, (this.#hits.get(entry.path) ?? 0) + 1);
    this.#open += 1;
    return record;
  }

  end(record: SimRequest, outcome: "completed" | "aborted", status: number | undefined): void {
    if (record.outcome !== "pending") return;
    record.outcome = outcome;
    record.status = status;
    this.#open -= 1;
  }

  /** Requests to `path` (or all requests) since the start or the last clear(). */
  hits(path?: string): number {
    if (path !== undefined) return this.#hits.get(path) ?? 0;
    let total = 0;
    for (const count of this.#hits.values()) total += count;
    return total;
  }

  clear(): void {
    this.#entries = [];
    this.#hits.clear();
  }
}
