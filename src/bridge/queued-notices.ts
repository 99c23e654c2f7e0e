import { z } from "zod";
import type { Coordination } from "../coordination/port.ts";
import { queueMovedTopic } from "../coordination/shared-queue.ts";
import type { ProcessSignals } from "../coordination/signals.ts";
import { storeFailureLevel } from "../errors.ts";
import type { Translator } from "../i18n/translator.ts";
import type { Logger } from "../log.ts";
import type { Channel, MessageRef, ReplySurface } from "../ports.ts";
import type { KeyValueStore } from "../store/types.ts";

export interface QueuedNoticesOptions {
  store: KeyValueStore & Coordination;
  signals: ProcessSignals;
  /** This process (ProcessPresence.id): a question it received and took itself needs no message. */
  processId: string;
  /** The deployment's queue (SharedQueue's key). */
  queueKey: string;
  log: Logger;
  /** Shortest time between two updates of the places shown (a platform's edit pace). */
  updateMs?: number | undefined;
  /** A question taken this soon is answered without a notice first. */
  delayMs?: number | undefined;
}

/** A notice on screen, as the answer that takes it over needs it. */
export interface ShownNotice {
  surface: ReplySurface;
  ref: MessageRef;
  /** The text it shows, for the answer to end it with should it fail before any text. */
  note: string;
}

/** What became of a queued question, as the process that received it learns it. */
export type QueuedEnd = "taken" | "taken here" | "withdrawn" | "let go" | "abandoned";

/** A queued question's notice, held by the process that received the question. */
export interface Notice {
  /** Settles once the question was taken (by any process), withdrawn, or let go. */
  readonly ended: Promise<QueuedEnd>;
  /**
   * Decides, for every process, that the question is withdrawn and never answered, and ends
   * its notice with `note`; false when its answer began first (that answer is stopped instead).
   */
  withdraw(note: string): Promise<boolean>;
  /** Lets go: no more updates (the process stops); `ended` settles "let go". */
  release(): void;
}

/** How a process that took a question finds its fate and its notice. */
export type Taken = { fate: "withdrawn" } | { fate: "answered"; shown: ShownNotice | undefined };

interface Tracked {
  id: string;
  surface: ReplySurface;
  t: Translator;
  ref: MessageRef | undefined;
  note: string;
  /** The place the notice shows, and the place it should show (updated by the queue's moves). */
  place: number;
  wanted: number;
  /** A place edit under way: it goes on to the wanted place once it landed. */
  editing: boolean;
  /** Aborted once the notice is no longer this process's to update: waits for the budget end. */
  waits: AbortController;
  state: "pending" | "shown" | "released";
  timer: NodeJS.Timeout | undefined;
  /** The post or edit under way: whoever takes the notice over goes after it. */
  busy: Promise<void>;
  end: (how: QueuedEnd) => void;
}

const takeRequest = z.object({ id: z.string() });
const savedNotice = z.object({ saved: z.unknown(), note: z.string() }).nullable();

const NOTICE_TTL_MS = 60 * 60 * 1000;
const noticeRefKey = (id: string) => `queue:notice-ref:${id}`;
const fateKey = (id: string) => `queue:fate:${id}`;
/** How long a taker waits for the receiving process to hand its notice over. */
const HAND_OVER_WITHIN_MS = 2_000;

/**
 * The "number N in line" notices of the questions waiting in the deployment's queue, each by
 * its entry's id there. The process that received a question shows its notice (unless a
 * process takes the question within a moment) and keeps its place current whenever the queue
 * moves (the processes say so through the store), until the question is taken or withdrawn.
 * The process that takes it tells the receiving one, which stops updating the notice and
 * hands it over once any edit under way has landed: the answer's first text goes into that
 * message, and no place ever lands over an answer. Nobody polls: the hand-over and the
 * queue's moves are messages (ProcessSignals).
 *
 * A question's fate is decided once, for every process (a claim on `queue:fate:<id>`): its
 * answer begins, or its asker's stop withdraws it, whichever comes first.
 */
export class QueuedNotices {
  readonly #options: QueuedNoticesOptions;
  readonly #tracked = new Map<string, Tracked>();
  #channels: readonly Channel[] = [];
  #refresh: NodeJS.Timeout | undefined;
  #lastRefresh = Number.NEGATIVE_INFINITY;
  #unsubscribe: (() => void) | undefined;

  constructor(options: QueuedNoticesOptions) {
    this.#options = options;
    options.signals.onRequest("notice.take", async (body) => {
      const request = takeRequest.safeParse(body);
      if (!request.success) return null;
      const shown = await this.#handOver(request.data.id);
      const saved = shown?.surface.persistRef?.(shown.ref);
      return saved === undefined || !shown ? null : { saved, note: shown.note };
    });
  }

  /** Hears the queue move, so the places shown follow; the channels reopen handed notices. */
  async start(channels: readonly Channel[]): Promise<void> {
    this.#channels = channels;
    this.#unsubscribe ??= await this.#options.store
      .subscribe(queueMovedTopic(this.#options.queueKey), () => this.#moved())
      .catch((error: unknown) => {
        this.#failed(error, "cannot hear the queue move: the places shown stay as they were");
        return undefined;
      });
  }

  /**
   * The process stops: every notice is let go (its question waits on in the queue for the
   * other processes), but those of `abandoned` questions, which no process can take after this
   * one: each ends with `note` in its asker's language (ask again).
   */
  async stop(abandoned: readonly string[], note: (t: Translator) => string): Promise<void> {
    this.#unsubscribe?.();
    clearTimeout(this.#refresh);
    const ending = new Set(abandoned);
    await Promise.all(
      [...this.#tracked.values()].map(async (tracked) => {
        if (!ending.has(tracked.id)) return this.#release(tracked, "let go");
        this.#release(tracked, "abandoned");
        await tracked.busy;
        if (tracked.ref !== undefined) await this.#edit(tracked, note(tracked.t), true);
      }),
    );
  }

  /**
   * Tells the asker of queued question `id` its place, unless a process takes it within a
   * moment; keeps it current while it waits.
   */
  show(id: string, surface: ReplySurface, t: Translator): Notice {
    let end: (how: QueuedEnd) => void = () => {};
    const ended = new Promise<QueuedEnd>((resolve) => {
      end = resolve;
    });
    const tracked: Tracked = {
      end,
      id,
      surface,
      t,
      ref: undefined,
      note: "",
      place: 0,
      wanted: 0,
      editing: false,
      waits: new AbortController(),
      state: "pending",
      timer: undefined,
      busy: Promise.resolve(),
    };
    this.#tracked.set(id, tracked);
    if (surface.persistRef) {
      tracked.timer = setTimeout(() => {
        tracked.busy = this.#post(tracked);
      }, this.#options.delayMs ?? NOTICE_DELAY_MS);
    }
    return {
      ended,
      withdraw: (note) => this.#withdraw(tracked, note),
      release: () => this.#release(tracked, "let go"),
    };
  }

  /**
   * The process that took the queued question `id` (received by `receiver`) decides its fate
   * and takes its notice over, if one is on screen.
   */
  async take(id: string, receiver: string): Promise<Taken> {
    const { store, signals, processId } = this.#options;
    if (!(await store.claim(fateKey(id), "answered", NOTICE_TTL_MS))) return { fate: "withdrawn" };
    if (receiver === processId) {
      return { fate: "answered", shown: await this.#handOver(id, "taken here") };
    }
    const reply = await signals
      .ask(receiver, "notice.take", { id }, HAND_OVER_WITHIN_MS)
      .catch(() => undefined);
    const handed = savedNotice.safeParse(reply);
    // No answer: the receiving process is gone, and the ref it kept when it posted says it all.
    const saved =
      reply !== undefined && handed.success
        ? handed.data
        : savedNotice.safeParse(await store.get(noticeRefKey(id)).catch(() => undefined)).data;
    return { fate: "answered", shown: saved ? this.#reopen(saved) : undefined };
  }

  /** A notice another process posted, rebuilt on the channel that posted it. */
  #reopen(shown: { saved: unknown; note: string }): ShownNotice | undefined {
    for (const channel of this.#channels) {
      const reopened = channel.reopen?.(shown.saved);
      if (reopened?.ref !== undefined) {
        return { surface: reopened.surface, ref: reopened.ref, note: shown.note };
      }
    }
    return undefined;
  }

  async #post(tracked: Tracked): Promise<void> {
    const { store } = this.#options;
    tracked.timer = undefined;
    if (tracked.state !== "pending") return;
    try {
      const place = (await this.#places()).indexOf(tracked.id) + 1;
      // Taken or withdrawn meanwhile.
      if (place === 0 || tracked.state !== "pending") return;
      const note = tracked.t.t("numberInLine", { place });
      const { surface } = tracked;
      await surface.budgetFor?.("post")?.acquire({ urgent: true, signal: tracked.waits.signal });
      tracked.ref = await surface.send({
        call: "post",
        text: surface.renderer.note(note),
        final: false,
      });
      tracked.note = note;
      tracked.place = place;
      tracked.wanted = place;
      tracked.state = "shown";
      // For a taker should this process be gone by then.
      await store.set(
        noticeRefKey(tracked.id),
        { saved: surface.persistRef?.(tracked.ref), note },
        NOTICE_TTL_MS,
      );
    } catch (error) {
      // Taken meanwhile (its wait for the platform's pace given up): nothing to show.
      if (tracked.waits.signal.aborted) return;
      // Only a courtesy: the question keeps its place and is answered all the same.
      this.#options.log.warn({ err: error }, "could not show that a question is queued");
    }
  }

  async #handOver(
    id: string,
    how: "taken" | "taken here" = "taken",
  ): Promise<ShownNotice | undefined> {
    const tracked = this.#tracked.get(id);
    if (!tracked) return undefined;
    this.#release(tracked, how);
    await tracked.busy;
    return tracked.ref === undefined
      ? undefined
      : { surface: tracked.surface, ref: tracked.ref, note: tracked.note };
  }

  async #withdraw(tracked: Tracked, note: string): Promise<boolean> {
    const { store } = this.#options;
    if (!(await store.claim(fateKey(tracked.id), "withdrawn", NOTICE_TTL_MS))) return false;
    this.#release(tracked, "withdrawn");
    await tracked.busy;
    void store.publish(queueMovedTopic(this.#options.queueKey), "").catch(() => undefined);
    if (tracked.ref !== undefined) await this.#edit(tracked, note, true);
    return true;
  }

  #release(tracked: Tracked, how: QueuedEnd): void {
    clearTimeout(tracked.timer);
    tracked.timer = undefined;
    tracked.state = "released";
    // A post or a place waiting for the platform's pace is given up: the notice is the answer's.
    tracked.waits.abort();
    this.#tracked.delete(tracked.id);
    tracked.end(how);
  }

  /** The queue moved: the places shown follow, at most once per update interval. */
  #moved(): void {
    if (this.#refresh || this.#tracked.size === 0) return;
    const updateMs = this.#options.updateMs ?? UPDATE_MS;
    const wait = Math.max(0, this.#lastRefresh + updateMs - performance.now());
    this.#refresh = setTimeout(() => void this.#update(), wait);
  }

  async #update(): Promise<void> {
    this.#refresh = undefined;
    this.#lastRefresh = performance.now();
    try {
      const places = new Map((await this.#places()).map((id, i) => [id, i + 1]));
      for (const tracked of this.#tracked.values()) {
        const place = places.get(tracked.id) ?? 0;
        if (tracked.state !== "shown" || place === 0) continue;
        tracked.wanted = place;
        this.#showPlace(tracked);
      }
    } catch (error) {
      this.#failed(error, "could not show the places in line");
    }
  }

  /**
   * Brings a notice to its wanted place: one edit at a time, each to the place wanted when it
   * goes, so a queue that moves fast costs one edit per platform beat, not one per move.
   */
  #showPlace(tracked: Tracked): void {
    if (tracked.editing || tracked.wanted === tracked.place) return;
    tracked.editing = true;
    tracked.busy = (async () => {
      try {
        while (tracked.state === "shown" && tracked.wanted !== tracked.place) {
          const place = tracked.wanted;
          await this.#edit(tracked, tracked.t.t("numberInLine", { place }), false);
          tracked.place = place;
        }
      } finally {
        tracked.editing = false;
      }
    })();
  }

  /** Edits a notice; a place only while it is this process's to show. */
  async #edit(tracked: Tracked, note: string, final: boolean): Promise<void> {
    const { surface, ref } = tracked;
    if (ref === undefined || (!final && tracked.state !== "shown")) return;
    try {
      const signal = final ? undefined : tracked.waits.signal;
      await surface.budgetFor?.("edit")?.acquire({ urgent: final, ...(signal && { signal }) });
      if (!final && tracked.state !== "shown") return;
      await surface.send({ call: "edit", ref, text: surface.renderer.note(note), final });
      tracked.note = note;
    } catch (error) {
      if (!final && tracked.waits.signal.aborted) return;
      // Only a courtesy: the question keeps its place, or stays withdrawn, all the same.
      this.#options.log.warn({ err: error }, "could not update a queued question's notice");
    }
  }

  /** The ids of the questions waiting, next first, without those withdrawn meanwhile. */
  async #places(): Promise<string[]> {
    const { store, queueKey } = this.#options;
    const ids = await store.streamPlaces(queueKey);
    const fates = ids.length > 0 ? await store.getMany<string>(ids.map(fateKey)) : [];
    return ids.filter((_, i) => fates[i] === undefined);
  }

  #failed(error: unknown, what: string): void {
    this.#options.log[storeFailureLevel(error)]({ err: error }, what);
  }
}

const NOTICE_DELAY_MS = 250;
const UPDATE_MS = 1_000;
