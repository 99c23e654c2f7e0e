/**
 * Telegram's HTML parse mode as the Bot API applies it, for the fake Bot API and the
 * renderer tests: only the documented tags, the four named entities plus numeric ones, every
 * tag closed in order, and the nesting rules of
 * https://core.telegram.org/bots/api#formatting-options. Errors read like Telegram's
 * ("can't parse entities: …").
 */

export interface ParsedEntity {
  type: string;
  /** UTF-16 code units, as Telegram counts entity offsets. */
  offset: number;
  length: number;
  url?: string;
  language?: string;
  custom_emoji_id?: string;
}

export interface ParsedText {
  text: string;
  entities: ParsedEntity[];
}

export class EntityParseError extends Error {
  constructor(detail: string) {
    super(`Bad Request: can't parse entities: ${detail}`);
  }
}

/** Bold, italic, underline and strikethrough: the same tags in classic and rich HTML. */
export const STYLE_TAGS: Readonly<Record<string, string>> = {
  b: "bold",
  strong: "bold",
  i: "italic",
  em: "italic",
  u: "underline",
  ins: "underline",
  s: "strikethrough",
  strike: "strikethrough",
  del: "strikethrough",
};

const TYPES: Record<string, string> = {
  ...STYLE_TAGS,
  span: "spoiler",
  "tg-spoiler": "spoiler",
  a: "text_link",
  code: "code",
  pre: "pre",
  blockquote: "blockquote",
  "tg-emoji": "custom_emoji",
};

/** Formatting that may wrap or sit inside anything but code and pre. */
const STYLES = new Set(["bold", "italic", "underline", "strikethrough", "spoiler"]);
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

interface Open {
  tag: string;
  type: string;
  start: number;
  url?: string;
  language?: string;
  /** Text length when a <pre> opened, to tell whether a <code> is its first content. */
  preStart?: number;
}

const START_TAG =
  /^<([a-zA-Z][a-zA-Z-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*>/;
const END_TAG = /^<\/([a-zA-Z][a-zA-Z0-9-]*)\s*>/;
const ATTRIBUTE = /([a-zA-Z-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
const ENTITY = /^&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/;

/** How one of Telegram's HTML styles reads tags and entities (classic here, rich in telegram-rich.ts). */
export interface HtmlDialect {
  /** The error Telegram answers for `detail` ("Unsupported start tag …"). */
  fail(detail: string): Error;
  /** Named entities it decodes (`lt` → "<"); numeric ones always decode. */
  named: Readonly<Record<string, string>>;
  /** A start tag: group 1 the name, group 2 the attributes, group 3 "/" when self-closed. */
  startTag: RegExp;
  known(tag: string): boolean;
  /** Tags without content or end tag (`<br>`). */
  isVoid(tag: string): boolean;
}

/** What a scan meets, in order; end tags are checked against their start tag before `close`. */
export interface TagEvents {
  /** `empty`: a void or self-closed tag, which gets no `close`. */
  open(tag: string, attributes: Map<string, string>, byteOffset: number, empty: boolean): void;
  close(tag: string): void;
  text(text: string): void;
}

/**
 * Reads `html` as Telegram does: every tag known and closed in order, entities decoded, a
 * stray ">" refused. Throws `dialect.fail(…)` with Telegram's wording where it would refuse.
 */
export function scanTags(html: string, dialect: HtmlDialect, events: TagEvents): void {
  const open: string[] = [];
  const byte = (index: number) => Buffer.byteLength(html.slice(0, index));
  let run = "";
  const flush = () => {
    if (run) events.text(run);
    run = "";
  };
  let i = 0;
  while (i < html.length) {
    const char = html[i] as string;
    if (char !== "<" && char !== "&" && char !== ">") {
      run += char;
      i += 1;
      continue;
    }
    const rest = html.slice(i, i + 2_000);
    if (char === "<" && rest[1] === "/") {
      const match = END_TAG.exec(rest);
      if (!match) throw dialect.fail(`Unclosed end tag at byte offset ${byte(i)}`);
      const name = (match[1] as string).toLowerCase();
      const expected = open.pop();
      if (!expected) throw dialect.fail(`Unexpected end tag at byte offset ${byte(i)}`);
      if (expected !== name) {
        throw dialect.fail(
          `Unmatched end tag at byte offset ${byte(i)}, expected "</${expected}>", found "</${name}>"`,
        );
      }
      flush();
      events.close(name);
      i += match[0].length;
    } else if (char === "<") {
      const match = dialect.startTag.exec(rest);
      const name = match?.[1]?.toLowerCase() ?? "";
      if (!match || !dialect.known(name)) {
        throw dialect.fail(`Unsupported start tag "${name}" at byte offset ${byte(i)}`);
      }
      flush();
      const empty = match[3] === "/" || dialect.isVoid(name);
      events.open(name, readAttributes(match[2] ?? "", dialect.named), byte(i), empty);
      if (!empty) open.push(name);
      i += match[0].length;
    } else if (char === "&") {
      const match = ENTITY.exec(rest);
      const decoded = match ? decodeEntity(match[1] as string, dialect.named) : undefined;
      if (!match || decoded === undefined) {
        throw dialect.fail(`Unsupported HTML entity at byte offset ${byte(i)}`);
      }
      run += decoded;
      i += match[0].length;
    } else {
      throw dialect.fail(`Unexpected ">" at byte offset ${byte(i)}`);
    }
  }
  flush();
  const unclosed = open.at(-1);
  if (unclosed) {
    throw dialect.fail(`Can't find end tag corresponding to start tag "${unclosed}"`);
  }
}

const CLASSIC: HtmlDialect = {
  fail: (detail) => new EntityParseError(detail),
  named: NAMED,
  startTag: START_TAG,
  known: (tag) => tag in TYPES,
  isVoid: () => false,
};

/** Parses `html` as Telegram does; throws EntityParseError where Telegram would refuse it. */
export function parseTelegramHtml(html: string): ParsedText {
  let text = "";
  const stack: Open[] = [];
  const entities: ParsedEntity[] = [];
  scanTags(html, CLASSIC, {
    open: (tag, attributes, offset) => {
      stack.push(openTag(tag, attributes, text.length, stack, offset));
    },
    close: () => close(stack.pop() as Open, text.length, stack, entities),
    text: (run) => {
      text += run;
    },
  });
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { text, entities };
}

function readAttributes(source: string, named: Readonly<Record<string, string>>) {
  const attributes = new Map<string, string>();
  for (const match of source.matchAll(ATTRIBUTE)) {
    const value = match[2] ?? match[3] ?? match[4] ?? "";
    attributes.set((match[1] as string).toLowerCase(), unescapeAttribute(value, named));
  }
  return attributes;
}

function openTag(
  tag: string,
  attributes: Map<string, string>,
  at: number,
  stack: readonly Open[],
  offset: number,
): Open {
  const type = TYPES[tag] as string;
  const parent = stack.at(-1);
  for (const ancestor of stack) {
    if (ancestor.type === "pre" && type === "code" && ancestor === parent && parent.preStart === at)
      continue;
    if (ancestor.type === "code" || ancestor.type === "pre") {
      throw new EntityParseError(
        `"${ancestor.tag}" can't contain "${tag}" at byte offset ${offset}`,
      );
    }
    if (!STYLES.has(type) && !STYLES.has(ancestor.type)) {
      throw new EntityParseError(
        `"${ancestor.tag}" can't contain "${tag}" at byte offset ${offset}`,
      );
    }
  }
  const open: Open = { tag, type, start: at };
  if (type === "text_link") {
    const href = attributes.get("href");
    if (!href) throw new EntityParseError(`Empty or missing href at byte offset ${offset}`);
    open.url = href;
  } else if (tag === "span" && attributes.get("class") !== "tg-spoiler") {
    throw new EntityParseError(`Tag "span" must have class "tg-spoiler" at byte offset ${offset}`);
  } else if (type === "code" && attributes.has("class")) {
    const language = /^language-(.+)$/.exec(attributes.get("class") ?? "")?.[1];
    if (parent?.type === "pre" && language) open.language = language;
  } else if (type === "pre") {
    open.preStart = at;
  } else if (type === "blockquote" && attributes.has("expandable")) {
    open.type = "expandable_blockquote";
  }
  return open;
}

function close(open: Open, end: number, stack: Open[], entities: ParsedEntity[]): void {
  const parent = stack.at(-1);
  if (open.type === "code" && parent?.type === "pre" && open.language) {
    parent.language = open.language;
    return;
  }
  if (open.type === "code" && parent?.type === "pre") return;
  if (end === open.start) return;
  const entity: ParsedEntity = { type: open.type, offset: open.start, length: end - open.start };
  if (open.url !== undefined) entity.url = open.url;
  if (open.language !== undefined) entity.language = open.language;
  entities.push(entity);
}

function decodeEntity(name: string, named: Readonly<Record<string, string>>): string | undefined {
  if (name[0] !== "#") return named[name];
  const code =
    name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
  return Number.isFinite(code) && code > 0 && code <= 0x10ffff
    ? String.fromCodePoint(code)
    : undefined;
}

function unescapeAttribute(value: string, named: Readonly<Record<string, string>>): string {
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    return decodeEntity(name, named) ?? whole;
  });
}

/** True when a string holds half of a surrogate pair (not valid UTF-8 once encoded). */
export function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
