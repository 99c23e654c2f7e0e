/**
 * A line kept in the store: tickets in the order they joined, across every process sharing
 * the store. The bridge lines up each thread's questions in one (src/bridge/thread-lines.ts),
 * so a thread is answered in the order its questions arrived, whichever process got each.
 *
 * A ticket is a string naming its process first (`<process>:<n>`), so whoever finds a ticket
 * of a dead process at the head can tell whose it was and take it out. Joining is one
 * command; so is leaving when nobody is known to wait, which is the common case: the line
 * costs a question two store commands (docs/architecture.md, "Order").
 *
 * On Redis a line is a list (RPUSH, LREM, LINDEX); the embedded store keeps the same steps in
 * memory (MemoryLines): a line only matters while its process runs.
 */

/** The process a ticket names (`<process>:<n>`). */
export function ticketProcess(ticket: string): string {
  const colon = ticket.lastIndexOf(":");
  return colon < 0 ? ticket : ticket.slice(0, colon);
}

/** Lines by key in this process's memory: the embedded store's. */
export class MemoryLines {
  readonly #lines = new Map<string, string[]>();

  join(key: string, ticket: string): number {
    const line = this.#lines.get(key) ?? [];
    this.#lines.set(key, line);
    line.push(ticket);
    return line.length;
  }

  leave(key: string, ticket: string): string | undefined {
    const line = this.#lines.get(key);
    if (!line) return undefined;
    const at = line.indexOf(ticket);
    if (at >= 0) line.splice(at, 1);
    if (line.length === 0) this.#lines.delete(key);
    return line[0];
  }

  head(key: string): string | undefined {
    return this.#lines.get(key)?.[0];
  }

  replace(key: string, ticket: string, by: string): boolean {
    const line = this.#lines.get(key);
    const at = line?.indexOf(ticket) ?? -1;
    if (!line || at < 0) return false;
    line[at] = by;
    return true;
  }
}

/** ARGV ticket, replacement: LSET at the ticket's place; 1 when it was in line. */
export const REDIS_LINE_REPLACE_SCRIPT = `
local at = redis.call("LPOS", KEYS[1], ARGV[1])
if not at then return 0 end
redis.call("LSET", KEYS[1], at, ARGV[2])
return 1
`;
