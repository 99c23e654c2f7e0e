import type { ButtonHandler, ButtonPresses, PressedButton } from "../ports.ts";

/** What a Button's action may be: kept short and free of the separators platforms use. */
export const ACTION_NAME = /^[A-Za-z0-9._-]{1,32}$/;

/**
 * The features' handlers of button presses, by action: a feature registers its actions once
 * (`on`), a channel hands it every press (`handle`). One registry for every channel, so a
 * button works the same in Slack and Telegram.
 */
export class ButtonHandlers implements ButtonPresses {
  readonly #handlers = new Map<string, ButtonHandler>();

  /** Throws when the action is not a valid name or already has a handler (a wiring mistake). */
  on(action: string, handler: ButtonHandler): this {
    if (!ACTION_NAME.test(action)) throw new Error(`not a button action name: ${action}`);
    if (this.#handlers.has(action)) throw new Error(`button action registered twice: ${action}`);
    this.#handlers.set(action, handler);
    return this;
  }

  async handle(pressed: PressedButton): Promise<boolean> {
    const handler = this.#handlers.get(pressed.action);
    if (!handler) return false;
    await handler(pressed);
    return true;
  }
}
