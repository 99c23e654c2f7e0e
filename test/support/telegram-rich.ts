import { type HtmlDialect, type ParsedEntity, STYLE_TAGS, scanTags } from "./telegram-html.ts";

/**
 * Telegram's rich messages (Bot API 10.1) as the Bot API reads their `html` field, for the
 * fake Bot API: the tags, attributes and named entities of "Rich HTML style", every tag closed
 * in order, blocks kept apart from inline formatting (table cells inline only, media only as
 * blocks with an http(s) source), and the documented limits
 * (https://core.telegram.org/bots/api#rich-message-formatting-options, mirrored in
 * node_modules/@grammyjs/types/rich.d.ts).
 *
 * Telegram documents no error texts for rich messages. The ones here are chosen to read like
 * its classic ones: "Bad Request: can't parse rich message: …" with the classic parser's
 * details ("Unsupported start tag …"), and "Bad Request: message is too long" as sendMessage
 * answers past its limit.
 *
 * What a person reads is given as plain text: blocks apart by a blank line, list items on
 * their own lines ("• item", "1. item", nested ones indented by two spaces), table rows as
 * cells joined by " | ", `<br>` as a newline, a divider as "———", a quote's credit as
 * "— Author" on its own line, whitespace outside `<pre>` collapsed as HTML does.
 */

export const RICH_LIMITS = {
  /** Characters of text, custom emoji alternative text and formula source included. */
  chars: 32_768,
  /** Blocks, counting nested blocks, list items, table rows, quotations and details. */
  blocks: 500,
  /** Levels of nested formatting and blocks. */
  depth: 16,
  media: 50,
  columns: 20,
} as const;

/** A rich message Telegram would refuse; `message` is its whole description. */
export class RichMessageError extends Error {}

const parseError = (detail: string) =>
  new RichMessageError(`Bad Request: can't parse rich message: ${detail}`);

export type CellAlign = "left" | "center" | "right";

export interface RichTable {
  /** The first row's cells when all of them are header cells (`<th>`), else none. */
  header: string[];
  rows: string[][];
  /** Per column, the first `align` a cell of it names (present when any cell names one). */
  align?: (CellAlign | undefined)[];
  caption?: string;
}

export interface RichHeading {
  level: number;
  text: string;
}

export interface RichMedia {
  kind: "photo" | "video" | "animation" | "audio" | "voice_note" | "document" | "map";
  src?: string;
}

/** What a test asserts on besides the reading: structure Telegram draws. */
export interface RichSummary {
  tables: RichTable[];
  headings: RichHeading[];
  /** Blocks as Telegram counts them against its limit of 500. */
  blocks: number;
  /** Deepest nesting: one level per block and per formatting tag as written; a table's rows and cells, captions and a `<pre>`'s `<code>` are part of their block. */
  depth: number;
  media: RichMedia[];
}

export interface ParsedRich {
  /** What a person reads (see the file comment). */
  text: string;
  /** Formatting in `text`, shaped as the classic parser's (telegram-html.ts). */
  entities: ParsedEntity[];
  rich: RichSummary;
  /**
   * The message's blocks as `Message.rich_message.blocks` carries them, with each text as a
   * plain string (its formatting is in `entities`) and media as placeholder files.
   */
  blocks: Record<string, unknown>[];
}

const NAMED: Readonly<Record<string, string>> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
};

/** Formatting tags and the entity each gives. */
const FORMAT: Readonly<Record<string, string>> = {
  ...STYLE_TAGS,
  mark: "marked",
  sub: "subscript",
  sup: "superscript",
  "tg-spoiler": "spoiler",
};

const BUTTON_TYPES = new Set([
  "url",
  "callback_data",
  "web_app",
  "login_url",
  "switch_inline_query",
  "switch_inline_query_current_chat",
  "switch_inline_query_chosen_chat",
  "copy_text",
  "disabled",
]);

/**
 * inline: formatting and text; block: a block of its own; part: only inside its block
 * (`li` in a list, cells in a row, …), where that block's reader takes it.
 */
type Role = "inline" | "block" | "part";

interface TagSpec {
  role: Role;
  attributes?: readonly string[];
}

const heading: TagSpec = { role: "block" };
const media: TagSpec = { role: "block", attributes: ["src", "tg-spoiler"] };
const TAGS: Readonly<Record<string, TagSpec>> = {
  ...Object.fromEntries(Object.keys(FORMAT).map((tag) => [tag, { role: "inline" }])),
  a: { role: "inline", attributes: ["href", "name"] },
  code: { role: "inline", attributes: ["class"] },
  br: { role: "inline" },
  "tg-reference": { role: "inline", attributes: ["name"] },
  "tg-emoji": { role: "inline", attributes: ["emoji-id"] },
  "tg-time": { role: "inline", attributes: ["unix", "format"] },
  "tg-math": { role: "inline" },
  "tg-button": {
    role: "inline",
    attributes: [
      "type",
      "style",
      "url",
      "data",
      "query",
      "text",
      "forward-text",
      "request-write-access",
      "allow-user-chats",
      "allow-bot-chats",
      "allow-group-chats",
      "allow-channel-chats",
    ],
  },
  h1: heading,
  h2: heading,
  h3: heading,
  h4: heading,
  h5: heading,
  h6: heading,
  p: { role: "block" },
  footer: { role: "block" },
  pre: { role: "block" },
  hr: { role: "block" },
  ul: { role: "block" },
  ol: { role: "block", attributes: ["start", "type", "reversed"] },
  li: { role: "part", attributes: ["value", "type"] },
  input: { role: "part", attributes: ["type", "checked"] },
  blockquote: { role: "block", attributes: ["expandable"] },
  aside: { role: "block" },
  cite: { role: "part" },
  // A custom emoji (src tg://emoji?id=…) is inline; any other image is a media block.
  img: { role: "block", attributes: ["src", "alt", "tg-spoiler"] },
  video: media,
  audio: media,
  "tg-document": media,
  "tg-map": { role: "block", attributes: ["lat", "long", "zoom"] },
  figure: { role: "block" },
  figcaption: { role: "part" },
  "tg-collage": { role: "block" },
  "tg-slideshow": { role: "block" },
  table: { role: "block", attributes: ["bordered", "striped", "compact"] },
  caption: { role: "part" },
  tr: { role: "part" },
  th: { role: "part", attributes: ["colspan", "rowspan", "align", "valign"] },
  td: { role: "part", attributes: ["colspan", "rowspan", "align", "valign"] },
  details: { role: "block", attributes: ["open"] },
  summary: { role: "part" },
  "tg-math-block": { role: "block" },
  "tg-button-row": { role: "block", attributes: ["align"] },
  "tg-thinking": { role: "block" },
};

const VOID = new Set(["br", "hr", "img", "input"]);
const MEDIA = new Set(["img", "video", "audio", "tg-document", "tg-map"]);

const DIALECT: HtmlDialect = {
  fail: parseError,
  named: NAMED,
  startTag:
    /^<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>/,
  known: (tag) => Object.hasOwn(TAGS, tag),
  isVoid: (tag) => VOID.has(tag),
};

interface Element {
  tag: string;
  attributes: Map<string, string>;
  children: Node[];
  /** Byte offset of its start tag, as Telegram's errors give it. */
  at: number;
}

type Node = Element | string;

/**
 * Parses a rich message's `html` as Telegram does; throws RichMessageError where Telegram
 * would refuse it. `draft`: the message is a sendRichMessageDraft's, where `<tg-thinking>`
 * may stand.
 */
export function parseRichHtml(html: string, options: { draft?: boolean } = {}): ParsedRich {
  const reader = new RichReader(options.draft === true);
  const blocks = reader.flow(readTree(html).children, undefined, 0);
  if (blocks.length === 0) throw new RichMessageError("Bad Request: rich message is empty");
  return reader.finish(blocks);
}

/** The tags as written, each known with only its documented attributes. */
function readTree(html: string): Element {
  const root: Element = { tag: "", attributes: new Map(), children: [], at: 0 };
  const stack = [root];
  scanTags(html, DIALECT, {
    open(tag, attributes, at, empty) {
      const allowed = TAGS[tag]?.attributes ?? [];
      for (const name of attributes.keys()) {
        if (!allowed.includes(name)) {
          throw parseError(`Unsupported attribute "${name}" in tag "${tag}" at byte offset ${at}`);
        }
      }
      const element: Element = { tag, attributes, children: [], at };
      (stack.at(-1) as Element).children.push(element);
      if (!empty) stack.push(element);
    },
    close() {
      stack.pop();
    },
    text(run) {
      (stack.at(-1) as Element).children.push(run);
    },
  });
  return root;
}

/** A span of the reading still open: an entity, or a slice a block's JSON or summary takes. */
interface Mark {
  entity: Omit<ParsedEntity, "offset" | "length"> | undefined;
  start?: number;
}

/**
 * The plain reading as it is written: separators owed between blocks, collapsed whitespace
 * owed between words, and spans that start where their first content lands.
 */
class Reading {
  text = "";
  /** Characters of content, as Telegram counts them against its limit (separators not). */
  chars = 0;
  readonly entities: ParsedEntity[] = [];
  #separator = "";
  #prefix = "";
  #space = false;
  #waiting: Mark[] = [];

  /** A block starts: its content goes after `separator` (the longer owed one wins). */
  separate(separator: string): void {
    this.#space = false;
    if (this.#prefix) return;
    if (separator.length > this.#separator.length) this.#separator = separator;
  }

  /** A list item starts: its first content goes after its label. */
  item(label: string): void {
    this.separate("\n");
    // A list first in an item: the outer label stands on a line of its own.
    this.#prefix = this.#prefix ? `${this.#prefix}\n${label}` : label;
  }

  /** An item that showed nothing leaves no label. */
  endItem(): void {
    this.#prefix = "";
  }

  /** Text from the message, whitespace collapsed unless `verbatim` (in `<pre>`). */
  words(text: string, verbatim = false): void {
    if (verbatim) {
      if (text) this.#write(text, true);
      return;
    }
    for (const part of text.split(/([ \t\n\r\f]+)/)) {
      if (/^[ \t\n\r\f]+$/.test(part)) this.#space = true;
      else if (part) this.#write(part, true);
    }
  }

  lineBreak(): void {
    this.#space = false;
    this.#write("\n", true);
  }

  /** Layout a person sees that is not the message's text (" | " between cells). */
  layout(text: string): void {
    this.#write(text, false);
  }

  open(entity?: Mark["entity"]): Mark {
    const mark: Mark = { entity };
    this.#waiting.push(mark);
    return mark;
  }

  /** Ends a span: its range in the reading, or undefined when nothing was written in it. */
  close(mark: Mark): { start: number; end: number } | undefined {
    if (mark.start === undefined) {
      this.#waiting = this.#waiting.filter((waiting) => waiting !== mark);
      return undefined;
    }
    const span = { start: mark.start, end: this.text.length };
    if (mark.entity && span.end > span.start) {
      this.entities.push({ ...mark.entity, offset: span.start, length: span.end - span.start });
    }
    return span;
  }

  slice(mark: Mark): string {
    const span = this.close(mark);
    return span ? this.text.slice(span.start, span.end).trim() : "";
  }

  #write(content: string, counted: boolean): void {
    if (this.text && this.#separator) this.text += this.#separator;
    else if (this.#space && !this.#prefix && !["", " ", "\n"].includes(this.text.at(-1) ?? "")) {
      // The space collapsed whitespace leaves between words is the message's text too.
      this.text += " ";
      if (counted) this.chars += 1;
    }
    this.text += this.#prefix;
    this.#separator = "";
    this.#prefix = "";
    this.#space = false;
    if (counted) {
      for (const mark of this.#waiting) mark.start = this.text.length;
      this.#waiting = [];
      this.chars += [...content].length;
    }
    this.text += content;
  }
}

interface Context {
  /** In a table cell: only inline formatting may stand. */
  cell?: true;
  /** Lists around, for an item's indent. */
  lists: number;
  /** Directly in a list item (a nested list follows its line without a blank one). */
  inItem?: true;
}

const TOP: Context = { lists: 0 };

class RichReader {
  readonly reading = new Reading();
  blocks = 0;
  depth = 0;
  readonly tables: RichTable[] = [];
  readonly headings: RichHeading[] = [];
  readonly media: RichMedia[] = [];

  constructor(readonly draft: boolean) {}

  finish(blocks: Record<string, unknown>[]): ParsedRich {
    const { reading } = this;
    if (reading.chars > RICH_LIMITS.chars) {
      throw new RichMessageError("Bad Request: message is too long");
    }
    reading.entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
    return {
      text: reading.text,
      entities: reading.entities,
      rich: {
        tables: this.tables,
        headings: this.headings,
        blocks: this.blocks,
        depth: this.depth,
        media: this.media,
      },
      blocks,
    };
  }

  /** One level deeper for `element`, refused past Telegram's limit. */
  level(element: Element, depth: number): number {
    const deeper = depth + 1;
    if (deeper > RICH_LIMITS.depth) {
      throw parseError(
        `too deep nesting at byte offset ${element.at}: at most ${RICH_LIMITS.depth} levels of formatting and blocks`,
      );
    }
    this.depth = Math.max(this.depth, deeper);
    return deeper;
  }

  countBlock(): void {
    this.blocks++;
    if (this.blocks > RICH_LIMITS.blocks) {
      throw parseError(`too many blocks: at most ${RICH_LIMITS.blocks}`);
    }
  }

  /**
   * The content of a place that holds blocks (the message, a list item, a quote, details):
   * its blocks, and each run of inline content between them as a paragraph.
   */
  flow(
    nodes: readonly Node[],
    parent: Element | undefined,
    depth: number,
    context: Context = TOP,
  ): Record<string, unknown>[] {
    const blocks: Record<string, unknown>[] = [];
    let run: Node[] = [];
    const paragraph = () => {
      if (run.some((node) => typeof node !== "string" || node.trim() !== "")) {
        this.countBlock();
        this.reading.separate("\n\n");
        const mark = this.reading.open();
        this.inline(run, parent, depth, context);
        blocks.push({ type: "paragraph", text: this.reading.slice(mark) });
      }
      run = [];
    };
    for (const node of nodes) {
      if (typeof node === "string" || !standsAlone(node)) {
        run.push(node);
        continue;
      }
      paragraph();
      blocks.push(this.block(node, parent, depth, context));
    }
    paragraph();
    return blocks;
  }

  inline(
    nodes: readonly Node[],
    parent: Element | undefined,
    depth: number,
    context: Context,
  ): void {
    for (const node of nodes) {
      if (typeof node === "string") this.reading.words(node);
      else this.inlineElement(node, parent, depth, context);
    }
  }

  inlineElement(
    element: Element,
    parent: Element | undefined,
    depth: number,
    context: Context,
  ): void {
    const { tag, attributes } = element;
    const { reading } = this;
    if (tag === "br") {
      reading.lineBreak();
      return;
    }
    if (tag === "img" && isCustomEmoji(attributes.get("src"))) {
      const mark = reading.open({
        type: "custom_emoji",
        custom_emoji_id: attributes.get("src")?.slice("tg://emoji?id=".length) ?? "",
      });
      reading.words(attributes.get("alt") ?? "");
      reading.close(mark);
      return;
    }
    if (TAGS[tag]?.role !== "inline") throw misplaced(element, parent, context);
    const inner = this.level(element, depth);
    const entity = this.entityOf(element);
    if (tag === "code" || tag === "tg-math" || tag === "tg-emoji") textOnly(element);
    if (tag === "a" && attributes.has("href")) noLinkInside(element);
    const mark = reading.open(entity);
    this.inline(element.children, element, inner, context);
    reading.close(mark);
  }

  /** The entity an inline tag gives (none for an anchor or a reference). */
  entityOf(element: Element): Mark["entity"] {
    const { tag, attributes, at } = element;
    const format = FORMAT[tag];
    if (format) return { type: format };
    if (tag === "code") {
      if (attributes.has("class")) {
        throw parseError(
          `Programming language can't be specified for standalone code tags at byte offset ${at}`,
        );
      }
      return { type: "code" };
    }
    if (tag === "a") {
      const href = attributes.get("href");
      const name = attributes.get("name");
      if (href === undefined && !name) {
        throw parseError(`Tag "a" must have an href or a name at byte offset ${at}`);
      }
      if (href === undefined) return undefined;
      if (!isLink(href)) throw parseError(`Unsupported URL "${href}" at byte offset ${at}`);
      return { type: "text_link", url: href };
    }
    if (tag === "tg-reference") {
      if (!attributes.get("name")) {
        throw parseError(`Tag "tg-reference" must have a name at byte offset ${at}`);
      }
      return undefined;
    }
    if (tag === "tg-emoji") {
      const id = attributes.get("emoji-id");
      if (!id || !/^\d+$/.test(id))
        throw parseError(`Invalid custom emoji identifier at byte offset ${at}`);
      return { type: "custom_emoji", custom_emoji_id: id };
    }
    if (tag === "tg-time") {
      if (!/^\d+$/.test(attributes.get("unix") ?? "")) {
        throw parseError(`Invalid date-time Unix time at byte offset ${at}`);
      }
      const format = attributes.get("format");
      if (format !== undefined && !/^(?:r|w?[dD]?[tT]?)$/.test(format)) {
        throw parseError(`Invalid date-time format at byte offset ${at}`);
      }
      return { type: "date_time" };
    }
    if (tag === "tg-math") return { type: "mathematical_expression" };
    return this.buttonEntity(element);
  }

  buttonEntity({ attributes, at }: Element): Mark["entity"] {
    const type = attributes.get("type") ?? "";
    if (!BUTTON_TYPES.has(type))
      throw parseError(`Unsupported button type "${type}" at byte offset ${at}`);
    const style = attributes.get("style");
    const styles = type === "callback_data" ? STYLES_WITH_LINK : STYLES;
    if (style !== undefined && !styles.includes(style)) {
      throw parseError(`Unsupported button style "${style}" at byte offset ${at}`);
    }
    const url = attributes.get("url");
    if (["url", "web_app", "login_url"].includes(type) && !(url && isLink(url))) {
      throw parseError(`Button of type "${type}" needs a url at byte offset ${at}`);
    }
    if (type === "callback_data") {
      const bytes = Buffer.byteLength(attributes.get("data") ?? "");
      if (bytes < 1 || bytes > 64) throw parseError(`Invalid button data at byte offset ${at}`);
    }
    return { type: "button", ...(url === undefined ? {} : { url }) };
  }

  /** A block at `depth` (its parent's level), read into the reading and as JSON. */
  block(
    element: Element,
    parent: Element | undefined,
    depth: number,
    context: Context,
  ): Record<string, unknown> {
    const { tag } = element;
    if (TAGS[tag]?.role === "part") throw misplaced(element, parent, context);
    this.countBlock();
    const inner = this.level(element, depth);
    const { reading } = this;
    const blockContext: Context = { lists: context.lists };
    if (/^h[1-6]$/.test(tag)) {
      const level = Number(tag.slice(1));
      const text = this.line(element, inner, blockContext);
      this.headings.push({ level, text });
      return { type: "heading", text, size: level };
    }
    if (tag === "p" || tag === "footer") {
      return {
        type: tag === "p" ? "paragraph" : "footer",
        text: this.line(element, inner, blockContext),
      };
    }
    if (tag === "tg-thinking") {
      if (!this.draft) {
        throw parseError(
          `Tag "tg-thinking" can be used only in sendRichMessageDraft at byte offset ${element.at}`,
        );
      }
      return { type: "thinking", text: this.line(element, inner, blockContext) };
    }
    if (tag === "pre") return this.preformatted(element);
    if (tag === "tg-math-block") {
      textOnly(element);
      reading.separate("\n\n");
      const mark = reading.open();
      reading.words(element.children.join(""), true);
      return { type: "mathematical_expression", expression: reading.slice(mark) };
    }
    if (tag === "hr") {
      reading.separate("\n\n");
      reading.layout("———");
      return { type: "divider" };
    }
    if (tag === "a") {
      return { type: "anchor", name: element.attributes.get("name") };
    }
    if (tag === "ul" || tag === "ol") return this.list(element, inner, context);
    if (tag === "blockquote" || tag === "aside") return this.quote(element, inner, blockContext);
    if (tag === "table") return this.table(element, inner);
    if (tag === "details") return this.details(element, inner, blockContext);
    if (tag === "tg-button-row") return this.buttonRow(element, inner);
    if (tag === "figure" || tag === "tg-collage" || tag === "tg-slideshow") {
      return this.gallery(element, inner);
    }
    return this.mediaBlock(element);
  }

  /** A block of inline content on its own: its text. */
  line(element: Element, depth: number, context: Context): string {
    this.reading.separate("\n\n");
    const mark = this.reading.open();
    this.inline(element.children, element, depth, context);
    return this.reading.slice(mark);
  }

  preformatted(element: Element): Record<string, unknown> {
    const { reading } = this;
    let language: string | undefined;
    let nodes = element.children;
    const [first] = element.children;
    if (element.children.length === 1 && typeof first !== "string" && first?.tag === "code") {
      textOnly(first);
      const className = first.attributes.get("class");
      if (className !== undefined) {
        language = /^language-(.+)$/.exec(className)?.[1];
        if (!language)
          throw parseError(`Unsupported class "${className}" at byte offset ${first.at}`);
      }
      nodes = first.children;
    } else {
      textOnly(element);
    }
    reading.separate("\n\n");
    const mark = reading.open({ type: "pre", ...(language ? { language } : {}) });
    reading.words(nodes.join(""), true);
    const span = reading.close(mark);
    const text = span ? reading.text.slice(span.start, span.end) : "";
    return { type: "pre", text, ...(language ? { language } : {}) };
  }

  list(element: Element, depth: number, context: Context): Record<string, unknown> {
    const { reading } = this;
    const ordered = element.tag === "ol";
    const items = elementsOnly(element, ["li"]);
    const reversed = element.attributes.has("reversed");
    let value = integer(element, "start") ?? (reversed ? items.length : 1);
    const listType = labelType(element);
    reading.separate(context.inItem ? "\n" : "\n\n");
    const json: Record<string, unknown>[] = [];
    for (const item of items) {
      this.countBlock();
      const inner = this.level(item, depth);
      value = integer(item, "value") ?? value;
      let children = item.children;
      const [first] = children;
      let checkbox: "☐" | "☑" | undefined;
      if (typeof first !== "string" && first?.tag === "input") {
        if (first.attributes.get("type") !== "checkbox") {
          throw parseError(`Unsupported input type at byte offset ${first.at}`);
        }
        checkbox = first.attributes.has("checked") ? "☑" : "☐";
        children = children.slice(1);
      }
      const label = ordered ? `${formatLabel(value, labelType(item) ?? listType)}.` : "•";
      const shown = checkbox ? (ordered ? `${label} ${checkbox}` : checkbox) : label;
      reading.item(`${"  ".repeat(context.lists)}${shown} `);
      const blocks = this.flow(children, item, inner, { lists: context.lists + 1, inItem: true });
      reading.endItem();
      json.push({
        label,
        blocks,
        ...(checkbox ? { has_checkbox: true } : {}),
        ...(checkbox === "☑" ? { is_checked: true } : {}),
        ...(ordered ? { value } : {}),
      });
      value += reversed ? -1 : 1;
    }
    return { type: "list", items: json };
  }

  quote(element: Element, depth: number, context: Context): Record<string, unknown> {
    const { reading } = this;
    const cites = element.children.filter(
      (node): node is Element => typeof node !== "string" && node.tag === "cite",
    );
    if (cites.length > 1) throw parseError(`Too many "cite" tags at byte offset ${cites[1]?.at}`);
    const content = element.children.filter((node) => !cites.includes(node as Element));
    const expandable = element.attributes.has("expandable");
    reading.separate("\n\n");
    const entity =
      element.tag === "aside"
        ? undefined
        : { type: expandable ? "expandable_blockquote" : "blockquote" };
    const mark = reading.open(entity);
    let json: Record<string, unknown>;
    if (element.tag === "blockquote" && !expandable) {
      json = { type: "blockquote", blocks: this.flow(content, element, depth, context) };
    } else {
      const text = reading.open();
      this.inline(content, element, depth, context);
      json = {
        type: expandable ? "expandable_blockquote" : "pullquote",
        text: reading.slice(text),
      };
    }
    const [cite] = cites;
    if (cite) json.credit = this.credit(cite, depth, context);
    reading.close(mark);
    return json;
  }

  /** A `<cite>`: the credit under a quote or caption, on its own line. */
  credit(cite: Element, depth: number, context: Context): string {
    this.reading.separate("\n");
    this.reading.layout("— ");
    const mark = this.reading.open();
    this.inline(cite.children, cite, depth, context);
    return this.reading.slice(mark);
  }

  table(element: Element, depth: number): Record<string, unknown> {
    const { reading } = this;
    for (const flag of element.attributes.values()) {
      if (flag !== "")
        throw parseError(`Unsupported attribute value in tag "table" at byte offset ${element.at}`);
    }
    const parts = elementsOnly(element, ["caption", "tr"]);
    const captionElement = parts[0]?.tag === "caption" ? parts[0] : undefined;
    const rows = parts.filter((part) => part.tag === "tr");
    if (parts.some((part, index) => part.tag === "caption" && index > 0)) {
      throw parseError(`Tag "caption" must be the first in "table" at byte offset ${element.at}`);
    }
    const cellContext: Context = { cell: true, lists: 0 };
    reading.separate("\n\n");
    const table: RichTable = { header: [], rows: [] };
    if (captionElement) {
      const mark = reading.open();
      this.inline(captionElement.children, captionElement, depth, TOP);
      table.caption = reading.slice(mark);
    }
    const align: (CellAlign | undefined)[] = [];
    const json: Record<string, unknown>[][] = [];
    const texts: string[][] = [];
    let allHeaders = true;
    for (const [rowIndex, row] of rows.entries()) {
      this.countBlock();
      const cells = elementsOnly(row, ["th", "td"]);
      const columns = cells.reduce((sum, cell) => sum + (integer(cell, "colspan") ?? 1), 0);
      if (columns > RICH_LIMITS.columns) {
        throw parseError(
          `too many table columns at byte offset ${row.at}: at most ${RICH_LIMITS.columns}`,
        );
      }
      reading.separate("\n");
      const rowTexts: string[] = [];
      const rowJson: Record<string, unknown>[] = [];
      for (const [index, cell] of cells.entries()) {
        if (index > 0) reading.layout(" | ");
        const cellAlign = choice(cell, "align", ["left", "center", "right"]) as
          | CellAlign
          | undefined;
        const valign = choice(cell, "valign", ["top", "middle", "bottom"]);
        align[index] ??= cellAlign;
        const mark = reading.open();
        this.inline(cell.children, cell, depth, cellContext);
        const text = reading.slice(mark);
        rowTexts.push(text);
        rowJson.push({
          text,
          ...(cell.tag === "th" ? { is_header: true } : {}),
          ...spans(cell),
          align: cellAlign ?? "left",
          valign: valign ?? "top",
        });
      }
      if (rowIndex === 0) allHeaders = cells.length > 0 && cells.every((cell) => cell.tag === "th");
      texts.push(rowTexts);
      json.push(rowJson);
    }
    if (allHeaders && texts.length > 0) table.header = texts.shift() as string[];
    table.rows = texts;
    if (align.some((value) => value !== undefined)) table.align = align;
    this.tables.push(table);
    return {
      type: "table",
      cells: json,
      ...Object.fromEntries([...element.attributes.keys()].map((flag) => [`is_${flag}`, true])),
      ...(table.caption === undefined ? {} : { caption: table.caption }),
    };
  }

  details(element: Element, depth: number, context: Context): Record<string, unknown> {
    const [summary, ...rest] = element.children.filter(
      (node) => typeof node !== "string" || node.trim() !== "",
    );
    if (typeof summary === "string" || summary?.tag !== "summary") {
      throw parseError(`Tag "details" must start with "summary" at byte offset ${element.at}`);
    }
    const text = this.line(summary, depth, context);
    return {
      type: "details",
      summary: text,
      blocks: this.flow(rest, element, depth, context),
      ...(element.attributes.has("open") ? { is_open: true } : {}),
    };
  }

  buttonRow(element: Element, depth: number): Record<string, unknown> {
    choice(element, "align", ["left", "center", "right"]);
    this.reading.separate("\n\n");
    for (const [index, button] of elementsOnly(element, ["tg-button"]).entries()) {
      if (index > 0) this.reading.layout(" | ");
      this.inlineElement(button, element, depth, TOP);
    }
    return { type: "buttons" };
  }

  /** A figure, collage or slideshow: media blocks and an optional caption last. */
  gallery(element: Element, depth: number): Record<string, unknown> {
    const parts = elementsOnly(element, [...MEDIA, "figcaption"]);
    const caption = parts.at(-1)?.tag === "figcaption" ? parts.at(-1) : undefined;
    const items = parts.filter((part) => part !== caption);
    if (items.some((part) => part.tag === "figcaption") || items.length === 0) {
      throw parseError(
        `Tag "${element.tag}" must hold media and then one "figcaption" at byte offset ${element.at}`,
      );
    }
    if (element.tag === "figure" && items.length > 1) {
      throw parseError(`Tag "figure" must hold one media block at byte offset ${element.at}`);
    }
    const blocks = items.map((item) => {
      if (element.tag !== "figure") this.countBlock();
      return this.mediaBlock(item);
    });
    let captionJson: Record<string, unknown> | undefined;
    if (caption) {
      this.reading.separate("\n\n");
      const cites = caption.children.filter(
        (node): node is Element => typeof node !== "string" && node.tag === "cite",
      );
      const mark = this.reading.open();
      this.inline(
        caption.children.filter((node) => !cites.includes(node as Element)),
        caption,
        depth,
        TOP,
      );
      captionJson = { text: this.reading.slice(mark) };
      const [cite] = cites;
      if (cite) captionJson.credit = this.credit(cite, depth, TOP);
    }
    if (element.tag === "figure")
      return { ...blocks[0], ...(captionJson ? { caption: captionJson } : {}) };
    return {
      type: element.tag === "tg-collage" ? "collage" : "slideshow",
      blocks,
      ...(captionJson ? { caption: captionJson } : {}),
    };
  }

  mediaBlock(element: Element): Record<string, unknown> {
    const { tag, attributes, at } = element;
    if (!MEDIA.has(tag)) throw misplaced(element, undefined, TOP);
    if (element.children.some((node) => typeof node !== "string" || node.trim() !== "")) {
      throw parseError(`Tag "${tag}" can't have content at byte offset ${at}`);
    }
    if (tag === "tg-map") {
      for (const name of ["lat", "long", "zoom"]) {
        if (!Number.isFinite(Number(attributes.get(name) ?? Number.NaN))) {
          throw parseError(`Invalid map ${name} at byte offset ${at}`);
        }
      }
      this.media.push({ kind: "map" });
      return {
        type: "map",
        location: {
          latitude: Number(attributes.get("lat")),
          longitude: Number(attributes.get("long")),
        },
        zoom: Number(attributes.get("zoom")),
      };
    }
    const src = attributes.get("src") ?? "";
    if (!/^https?:\/\/[^\s/]+/i.test(src)) {
      throw parseError(`Media blocks support only HTTP and HTTPS URLs at byte offset ${at}`);
    }
    const kind = mediaKind(tag, src);
    this.media.push({ kind, src });
    if (this.media.filter((item) => item.kind !== "map").length > RICH_LIMITS.media) {
      throw parseError(`too many media: at most ${RICH_LIMITS.media}`);
    }
    const file = {
      file_id: `fake-${kind}-${this.media.length}`,
      file_unique_id: `fake${this.media.length}`,
    };
    return {
      type: kind,
      [kind]: kind === "photo" ? [{ ...file, width: 1, height: 1 }] : file,
      ...(attributes.has("tg-spoiler") ? { has_spoiler: true } : {}),
    };
  }
}

const STYLES = ["danger", "success", "primary"];
const STYLES_WITH_LINK = [...STYLES, "link"];

/** Whether `element` is a block of its own where blocks may stand. */
function standsAlone(element: Element): boolean {
  const { tag, attributes } = element;
  if (tag === "img") return !isCustomEmoji(attributes.get("src"));
  if (tag === "a") return !attributes.has("href") && element.children.length === 0;
  return TAGS[tag]?.role !== "inline";
}

function isCustomEmoji(src: string | undefined): boolean {
  return src?.startsWith("tg://emoji?id=") === true;
}

/** Links the Rich HTML style documents: web, e-mail, phone, tg:// and in-document ones. */
function isLink(href: string): boolean {
  return /^(?:https?:\/\/\S|mailto:\S|tel:\S|tg:\/\/\S|#\S)/i.test(href);
}

function misplaced(element: Element, parent: Element | undefined, context: Context): Error {
  const { tag, at } = element;
  if (context.cell) {
    return parseError(
      `Table cells can contain only inline formatting, found "${tag}" at byte offset ${at}`,
    );
  }
  if (MEDIA.has(tag)) {
    return parseError(
      `Media can be specified only as a separate block, found "${tag}" at byte offset ${at}`,
    );
  }
  const where = parent ? `"${parent.tag}"` : "the message";
  return parseError(`Tag "${tag}" can't be inside ${where} at byte offset ${at}`);
}

/** Refuses any tag inside `element` (code, formulas, custom emoji hold text only). */
function textOnly(element: Element): void {
  const inner = element.children.find((node) => typeof node !== "string");
  if (inner && typeof inner !== "string") {
    throw parseError(`"${element.tag}" can't contain "${inner.tag}" at byte offset ${inner.at}`);
  }
}

function noLinkInside(element: Element): void {
  for (const node of element.children) {
    if (typeof node === "string") continue;
    if (node.tag === "a" && node.attributes.has("href")) {
      throw parseError(`"a" can't contain "a" at byte offset ${node.at}`);
    }
    noLinkInside(node);
  }
}

/** The child elements of `element`, each one of `tags`, with only whitespace between. */
function elementsOnly(element: Element, tags: readonly string[]): Element[] {
  const elements: Element[] = [];
  for (const node of element.children) {
    if (typeof node === "string") {
      if (node.trim() !== "") {
        throw parseError(`Tag "${element.tag}" can't contain text at byte offset ${element.at}`);
      }
    } else if (tags.includes(node.tag)) {
      elements.push(node);
    } else {
      throw parseError(
        `Tag "${node.tag}" can't be inside "${element.tag}" at byte offset ${node.at}`,
      );
    }
  }
  return elements;
}

function integer(element: Element, name: string): number | undefined {
  const value = element.attributes.get(name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) {
    throw parseError(`Invalid value of attribute "${name}" at byte offset ${element.at}`);
  }
  return Number(value);
}

function choice(element: Element, name: string, values: readonly string[]): string | undefined {
  const value = element.attributes.get(name);
  if (value !== undefined && !values.includes(value)) {
    throw parseError(`Invalid value of attribute "${name}" at byte offset ${element.at}`);
  }
  return value;
}

function spans(cell: Element): Record<string, number> {
  const result: Record<string, number> = {};
  for (const name of ["colspan", "rowspan"]) {
    const value = integer(cell, name);
    if (value !== undefined && value < 1) {
      throw parseError(`Invalid value of attribute "${name}" at byte offset ${cell.at}`);
    }
    if (value !== undefined && value > 1) result[name] = value;
  }
  return result;
}

type LabelType = "a" | "A" | "i" | "I" | "1";

function labelType(element: Element): LabelType | undefined {
  return choice(element, "type", ["a", "A", "i", "I", "1"]) as LabelType | undefined;
}

function formatLabel(value: number, type: LabelType = "1"): string {
  if (type === "1" || value < 1) return String(value);
  if (type === "a" || type === "A") {
    let label = "";
    for (let rest = value; rest > 0; rest = Math.floor((rest - 1) / 26)) {
      label = String.fromCharCode(97 + ((rest - 1) % 26)) + label;
    }
    return type === "A" ? label.toUpperCase() : label;
  }
  const numerals: [number, string][] = [
    [1000, "m"],
    [900, "cm"],
    [500, "d"],
    [400, "cd"],
    [100, "c"],
    [90, "xc"],
    [50, "l"],
    [40, "xl"],
    [10, "x"],
    [9, "ix"],
    [5, "v"],
    [4, "iv"],
    [1, "i"],
  ];
  let label = "";
  let rest = value;
  for (const [size, numeral] of numerals) {
    for (; rest >= size; rest -= size) label += numeral;
  }
  return type === "I" ? label.toUpperCase() : label;
}

/** "Media type is determined by the MIME type and the URL of the media": here by the URL. */
function mediaKind(tag: string, src: string): RichMedia["kind"] {
  const path = src.split(/[?#]/)[0]?.toLowerCase() ?? "";
  if (tag === "img") return "photo";
  if (tag === "video") return path.endsWith(".gif") ? "animation" : "video";
  if (tag === "audio") return path.endsWith(".ogg") ? "voice_note" : "audio";
  return "document";
}

/** Top-level domains the fake takes a bare domain in text for ("t.me", "example.com"). */
const DOMAINS = "com|org|net|io|me|dev|app|ai|co|info|biz|xyz|ru|de|uk|fr|es|it|nl|us|in|gg|tv";
const URL_IN_TEXT = new RegExp(
  `(^|[^\\w@./-])((?:(?:https?|tg|ftp)://[^\\s<>"]+)|(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+(?:${DOMAINS})(?::\\d+)?(?:/[^\\s<>"]*)?))(?![\\w.-]*[\\w-])`,
  "gi",
);

/** @mentions as Telegram finds them in text: "@" after no word character, then a username. */
export function findMentions(text: string): ParsedEntity[] {
  const entities: ParsedEntity[] = [];
  for (const match of text.matchAll(/(^|[^\w@/])(@[A-Za-z0-9_]{4,32})/g)) {
    const offset = (match.index ?? 0) + (match[1]?.length ?? 0);
    entities.push({ type: "mention", offset, length: match[2]?.length ?? 0 });
  }
  return entities;
}

/** Entities in which Telegram detects nothing more. */
const OPAQUE = new Set([
  "code",
  "pre",
  "text_link",
  "custom_emoji",
  "date_time",
  "mathematical_expression",
  "button",
]);

/**
 * What Telegram detects in a rich message's text unless `skip_entity_detection`: @mentions
 * (which notify), URLs (scheme links, and bare domains of common top-level domains: the
 * fake's approximation of Telegram's list) and /commands, outside code, links and the like
 * among `entities`.
 */
export function detectEntities(text: string, entities: readonly ParsedEntity[]): ParsedEntity[] {
  const found = findMentions(text);
  for (const match of text.matchAll(
    /(^|\s)(\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?)(?![\w/@])/g,
  )) {
    const offset = (match.index ?? 0) + (match[1]?.length ?? 0);
    found.push({ type: "bot_command", offset, length: match[2]?.length ?? 0 });
  }
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const url = (match[2] ?? "").replace(/[.,;:!?)\]'"]+$/, "");
    const offset = (match.index ?? 0) + (match[1]?.length ?? 0);
    found.push({ type: "url", offset, length: url.length });
  }
  const opaque = entities.filter((entity) => OPAQUE.has(entity.type));
  return found
    .filter(
      (entity) =>
        !opaque.some(
          (inside) =>
            entity.offset < inside.offset + inside.length &&
            inside.offset < entity.offset + entity.length,
        ),
    )
    .sort((a, b) => a.offset - b.offset);
}
