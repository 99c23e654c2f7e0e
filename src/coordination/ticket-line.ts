/**
 * A line kept in the store: whoever takes a ticket first is served first, across every
 * process sharing the store (a ticket lock, the fair version of a plain lock). The bridge
 * lines up each thread's questions in one, so a thread is answered in the order its
 * questions arrived, whichever process got each.
 *
 * Why not a plain lock: a process that finishes an answer can take the lock again for its
 * next local question before another process's poll sees it free, so a question that came
 * in later on that process overtakes one waiting elsewhere (issue 12: asked q1 on A, q2 on B,
 * q3 on A; answered q1, q3, q2). A ticket is taken on arrival, so the order is fixed then.
 *
 * Each ticket holds a lease its holder renews (every check renews it). A ticket given back or
 * whose lease ran out (its process died) is skipped by the next check, so a dead holder
 * holds the line up for one lease at most. Tickets carry an owner, so a holder whose lease
 * lapsed never mistakes a later ticket of the same number for its own.
 */

/**
 * Where a ticket stands: `served` (its turn: nothing alive is ahead), `waiting` (a live
 * ticket is ahead), `lapsed` (its lease ran out before this check: the line went on without
 * it, and it is no longer in line).
 */
export type TicketStatus = "served" | "waiting" | "lapsed";

/**
 * A ticket just taken: its number, and `served` when nothing was left ahead of it (the line
 * was empty, or every ticket before it had gone back), so the common case needs no check.
 */
export interface TakenTicket {
  number: number;
  served: boolean;
}

interface Ticket {
  owner: string;
  /** When the lease ends, on the clock the store uses. */
  endsAt: number;
}

/** One line: `next` the last ticket taken, `serving` the first one not yet passed. */
interface LineState {
  next: number;
  serving: number;
  tickets: Map<number, Ticket>;
}

/**
 * Lines by key in this process's memory: the embedded store's. Its data belongs to one
 * process, and a line only matters while that process runs, so it needs no disk, and a
 * process killed mid-answer leaves no ticket to wait for after its restart.
 */
export class MemoryLines {
  readonly #lines = new Map<string, LineState>();

  take(key: string, owner: string, leaseMs: number): TakenTicket {
    let line = this.#lines.get(key);
    if (!line) {
      line = { next: 0, serving: 1, tickets: new Map() };
      this.#lines.set(key, line);
    }
    line.next += 1;
    line.tickets.set(line.next, { owner, endsAt: performance.now() + leaseMs });
    return { number: line.next, served: line.serving === line.next };
  }

  check(key: string, number: number, owner: string, leaseMs: number): TicketStatus {
    const line = this.#lines.get(key);
    const ticket = line?.tickets.get(number);
    if (!line || ticket?.owner !== owner) return "lapsed";
    const now = performance.now();
    if (ticket.endsAt <= now) {
      this.#drop(key, line, number);
      return "lapsed";
    }
    ticket.endsAt = now + leaseMs;
    while (line.serving < number) {
      const ahead = line.tickets.get(line.serving);
      if (ahead && ahead.endsAt > now) break;
      line.tickets.delete(line.serving);
      line.serving += 1;
    }
    return line.serving >= number ? "served" : "waiting";
  }

  giveBack(key: string, number: number, owner: string): void {
    const line = this.#lines.get(key);
    if (line?.tickets.get(number)?.owner === owner) this.#drop(key, line, number);
  }

  /** Forgets lines whose every ticket lapsed (their holders stopped without giving back). */
  sweep(): void {
    const now = performance.now();
    for (const [key, line] of this.#lines) {
      if ([...line.tickets.values()].every((t) => t.endsAt <= now)) this.#lines.delete(key);
    }
  }

  #drop(key: string, line: LineState, number: number): void {
    line.tickets.delete(number);
    if (line.tickets.size === 0) this.#lines.delete(key);
  }
}

// The same steps as MemoryLines, on the server, atomically, on the server's clock. KEYS[1] is
// the line: a hash of "next", "serving" and one field per ticket, "<lease end ms>|<owner>".
// The hash lives as long as its longest lease and is deleted when its last ticket goes back.
const PRELUDE = `
local line = KEYS[1]
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local function ticket(value)
  if not value then return nil, nil end
  local bar = string.find(value, "|", 1, true)
  return tonumber(string.sub(value, 1, bar - 1)), string.sub(value, bar + 1)
end
local function keep(lease)
  if redis.call("PTTL", line) < lease then redis.call("PEXPIRE", line, lease) end
end
`;

/** ARGV owner, lease ms. Returns the ticket's number, negative when it is served at once. */
export const REDIS_TAKE_TICKET_SCRIPT = `${PRELUDE}
local lease = tonumber(ARGV[2])
local number = redis.call("HINCRBY", line, "next", 1)
local first = redis.call("HSETNX", line, "serving", number) == 1
redis.call("HSET", line, number, string.format("%d|%s", now + lease, ARGV[1]))
keep(lease)
if first or tonumber(redis.call("HGET", line, "serving")) == number then return -number end
return number
`;

/** The take script's reply as a ticket. */
export function takenTicketOf(reply: unknown): TakenTicket {
  const code = Number(reply);
  return { number: Math.abs(code), served: code < 0 };
}

/** ARGV ticket, owner, lease ms. Returns 1 served, 0 waiting, -1 lapsed. */
export const REDIS_CHECK_TICKET_SCRIPT = `${PRELUDE}
local number = tonumber(ARGV[1])
local lease = tonumber(ARGV[3])
local endsAt, owner = ticket(redis.call("HGET", line, number))
if owner ~= ARGV[2] then return -1 end
if endsAt <= now then
  redis.call("HDEL", line, number)
  if redis.call("HLEN", line) <= 2 then redis.call("DEL", line) end
  return -1
end
redis.call("HSET", line, number, string.format("%d|%s", now + lease, owner))
keep(lease)
local serving = tonumber(redis.call("HGET", line, "serving")) or number
while serving < number do
  local aheadEndsAt = ticket(redis.call("HGET", line, serving))
  if aheadEndsAt and aheadEndsAt > now then break end
  redis.call("HDEL", line, serving)
  serving = serving + 1
end
redis.call("HSET", line, "serving", serving)
if serving >= number then return 1 end
return 0
`;

/** ARGV ticket, owner. */
export const REDIS_GIVE_BACK_TICKET_SCRIPT = `${PRELUDE}
local _, owner = ticket(redis.call("HGET", line, ARGV[1]))
if owner == ARGV[2] then redis.call("HDEL", line, ARGV[1]) end
if redis.call("HLEN", line) <= 2 then redis.call("DEL", line) end
return 0
`;

/** The check script's reply as a status. */
export function ticketStatusOf(reply: unknown): TicketStatus {
  const code = Number(reply);
  return code === 1 ? "served" : code === 0 ? "waiting" : "lapsed";
}
