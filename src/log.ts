import { type Logger, pino } from "pino";
import pretty from "pino-pretty";

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Every secret the process knows; each is masked wherever it appears in a log line. */
  secrets: readonly string[];
  /** Readable lines for a person at a terminal; JSON lines otherwise. Defaults to stderr being a TTY. */
  pretty?: boolean;
  /** Where lines go; stderr by default, so stdout stays free for the console channel's answers. */
  destination?: NodeJS.WritableStream;
}

const REDACTED = "[redacted]";

// Field names that hold secrets, wherever they appear one or two levels down.
const SECRET_FIELDS = ["apiKey", "token", "authorization", "password", "secret", "signingSecret"];

/**
 * Creates the process logger. Secrets are kept out twice over: known field names are
 * redacted by pino, and every line is scanned for the configured secret values before it
 * is written, so a secret inside an error message or a URL is masked too.
 */
export function createLogger(options: LoggerOptions): Logger {
  const { secrets } = options;
  const destination = options.destination ?? process.stderr;
  const usePretty = options.pretty ?? Boolean((destination as { isTTY?: boolean }).isTTY);
  const stream = usePretty
    ? pretty({ destination, colorize: true, sync: true, ignore: "pid,hostname" })
    : destination;
  return pino(
    {
      level: options.level,
      base: undefined,
      // Our errors already say their cause in their message: pino's default `err` serializer
      // would append each cause's message again ("…: WRONGPASS …: WRONGPASS …").
      serializers: { err: pino.stdSerializers.errWithCause },
      redact: {
        paths: SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
        censor: REDACTED,
      },
      hooks: {
        streamWrite: (line) => maskSecrets(line, secrets),
      },
    },
    stream,
  );
}

/** `line` with every secret (of 4 characters or more) replaced, in plain and JSON-escaped form. */
export function maskSecrets(line: string, secrets: readonly string[]): string {
  let masked = line;
  for (const secret of secrets) {
    // Shorter ones would mask ordinary words.
    if (secret.length < 4) continue;
    if (masked.includes(secret)) masked = masked.replaceAll(secret, REDACTED);
    // JSON output escapes some characters; also mask the escaped form.
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && masked.includes(escaped))
      masked = masked.replaceAll(escaped, REDACTED);
  }
  return masked;
}
