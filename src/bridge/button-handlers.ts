import { userTextOf } from "../errors.ts";
import type { ChannelLanguages } from "../i18n/channel-language.ts";
import type { Translator } from "../i18n/translator.ts";
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

/** The language of a private reply to a press: the channel's, else the presser's own. */
export function presserLanguage(
  pressed: PressedButton,
  languages: ChannelLanguages,
): Promise<Translator> {
  return languages.translatorFor(pressed.channelKey, pressed.person.locale);
}

/**
 * Wraps a handler so that its failure (an admin check Slack or Telegram could not answer, a
 * store that is down) is told to the presser privately, in their words, instead of a press
 * that seems to do nothing; the error still goes on to the channel's log. A handler that
 * already tried to reply is not answered twice: its reply may have arrived though the call
 * failed.
 */
export function toldOnFailure(
  languages: ChannelLanguages,
): (handler: ButtonHandler) => ButtonHandler {
  return (handler) => async (pressed) => {
    let replied = false;
    try {
      await handler({
        ...pressed,
        replyPrivately: (text, options) => {
          replied = true;
          return pressed.replyPrivately(text, options);
        },
      });
    } catch (error) {
      if (!replied) {
        const t = await presserLanguage(pressed, languages);
        await pressed
          .replyPrivately(t.t("failed", { reason: userTextOf(error) }))
          .catch(() => undefined);
      }
      throw error;
    }
  };
}
