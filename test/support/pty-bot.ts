import { spawn, spawnSync } from "node:child_process";
import { botCommand } from "./run-bot.ts";
import { VirtualTerminal } from "./virtual-terminal.ts";

/** Whether util-linux `script` is here to give the bot a real pseudo-terminal. */
export function hasScript(): boolean {
  return spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;
}

export interface BotInTerminal {
  /** What the terminal shows. */
  screen: VirtualTerminal;
  /** Keys as a person types them ("\r" is Enter, "\u0003" is Ctrl+C). */
  type(keys: string): void;
  /** Resolves with the bot's exit code. */
  exited: Promise<number | null>;
  kill(): void;
}

/**
 * Runs the bot (botCommand) on a real pseudo-terminal of
 * `columns` × `rows`, made by `script`: stdin and stdout are a TTY, keys go in raw.
 */
export function startBotInTerminal(options: {
  env: Record<string, string>;
  cwd: string;
  columns?: number;
  rows?: number;
}): BotInTerminal {
  const columns = options.columns ?? 100;
  const rows = options.rows ?? 30;
  const command = `stty cols ${columns} rows ${rows} && exec ${botCommand()
    .map((part) => `"${part}"`)
    .join(" ")}`;
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", SHELL: "/bin/sh", TERM: "xterm-256color", ...options.env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const screen = new VirtualTerminal(columns, rows);
  child.stdout.on("data", (chunk: Buffer) => screen.write(chunk));
  const exited = new Promise<number | null>((resolvePromise) => child.on("close", resolvePromise));
  return {
    screen,
    type: (keys) => child.stdin.write(keys),
    exited,
    kill: () => {
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
