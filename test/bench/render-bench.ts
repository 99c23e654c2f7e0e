// CPU per render of a long answer's growing text: Telegram's rich HTML (the default) beside
// its classic HTML, each render parsing its text anew, as a streaming answer's edits do.
import { renderMarkdown } from "../../adapters/telegram/render.ts";
import { renderRich } from "../../adapters/telegram/rich-render.ts";
import { hugeAnswer } from "../../src/simulator/answers.ts";
import { NESTED } from "../support/markdown-samples.ts";
import { cpuMsSince, median, round } from "./stats.ts";

export interface RenderRow {
  renderer: string;
  /** Characters rendered each time (about; each render a few more than the one before). */
  chars: number;
  /** Median CPU ms per render over the runs. */
  msPerRender: number;
  /** This renderer's time ÷ the classic HTML's. */
  ratio: number;
}

const RENDERS = 20;
const RUNS = 7;

export function benchRender(): RenderRow[] {
  const long = `${NESTED}\n\n${hugeAnswer(30_000)}`;
  const timed = (render: (markdown: string) => string): number => {
    const runs: number[] = [];
    // The first run warms the renderer up and is not counted.
    for (let run = 0; run <= RUNS; run++) {
      const before = process.cpuUsage();
      for (let i = 0; i < RENDERS; i++) render(long.slice(0, 10_000 + i * 10));
      if (run > 0) runs.push(cpuMsSince(before) / RENDERS);
    }
    return median(runs);
  };
  const html = timed(renderMarkdown);
  const rich = timed(renderRich);
  return [
    { renderer: "Telegram HTML", chars: 10_000, msPerRender: round(html, 3), ratio: 1 },
    {
      renderer: "Telegram rich HTML",
      chars: 10_000,
      msPerRender: round(rich, 3),
      ratio: round(rich / html),
    },
  ];
}
