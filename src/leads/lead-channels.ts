import type { KeyValueStore } from "../store/types.ts";
import { channelKeyOf, type LeadChannel } from "./types.ts";

const SUBSCRIPTIONS_KEY = "leads:subscriptions";

export type SubscriptionChange = "changed" | "unchanged" | "configured";

/**
 * Where leads go: the channels named in the configuration, plus those an admin subscribed
 * with `/leads subscribe` (kept in the store, so they survive restarts).
 */
export class LeadChannels {
  readonly #store: KeyValueStore;
  readonly #configured: readonly LeadChannel[];

  constructor(store: KeyValueStore, configured: readonly LeadChannel[]) {
    this.#store = store;
    this.#configured = configured;
  }

  async all(): Promise<LeadChannel[]> {
    const byKey = new Map(this.#configured.map((c) => [channelKeyOf(c), c]));
    for (const channel of await this.#subscribed()) byKey.set(channelKeyOf(channel), channel);
    return [...byKey.values()];
  }

  async includes(channel: LeadChannel): Promise<boolean> {
    const key = channelKeyOf(channel);
    return (await this.all()).some((c) => channelKeyOf(c) === key);
  }

  async subscribe(channel: LeadChannel): Promise<SubscriptionChange> {
    if (this.#isConfigured(channel)) return "configured";
    const subscribed = await this.#subscribed();
    const key = channelKeyOf(channel);
    if (subscribed.some((c) => channelKeyOf(c) === key)) return "unchanged";
    await this.#store.set(SUBSCRIPTIONS_KEY, [...subscribed, channel]);
    return "changed";
  }

  async unsubscribe(channel: LeadChannel): Promise<SubscriptionChange> {
    if (this.#isConfigured(channel)) return "configured";
    const subscribed = await this.#subscribed();
    const key = channelKeyOf(channel);
    const rest = subscribed.filter((c) => channelKeyOf(c) !== key);
    if (rest.length === subscribed.length) return "unchanged";
    await this.#store.set(SUBSCRIPTIONS_KEY, rest);
    return "changed";
  }

  #isConfigured(channel: LeadChannel): boolean {
    const key = channelKeyOf(channel);
    return this.#configured.some((c) => channelKeyOf(c) === key);
  }

  async #subscribed(): Promise<LeadChannel[]> {
    const value = await this.#store.get<unknown>(SUBSCRIPTIONS_KEY);
    if (!Array.isArray(value)) return [];
    return value.filter(
      (v): v is LeadChannel =>
        typeof v === "object" &&
        v !== null &&
        typeof v.platform === "string" &&
        typeof v.id === "string",
    );
  }
}
