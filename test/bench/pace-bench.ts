import { groupBurst, median } from "../support/group-burst.ts";
import { slackStreamEnds, slackWorkspaceShare } from "../support/slack-pace.ts";
import { formatTable } from "./table.ts";

export interface PaceBenchOptions {
  /** Telegram's time runs this many times faster (1: real time, a minute-long window). */
  scale?: number;
  /** Slack answers measured one after the other. */
  slackAnswers?: number;
}

export interface PaceResult {
  telegram: {
    firstTextMedianMs: number;
    firstTextMaxMs: number;
    completeAfterEndMedianMs: number;
    completeAfterEndMaxMs: number;
    floodErrors: number;
    busiestMinute: number;
    exact: number;
  };
  slack: {
    streamEndMedianMs: number;
    streamEndMaxMs: number;
    answers: number;
    /** Ten streams at once in one workspace: changes in each one's first five seconds. */
    burstChanges: number[];
    /** 429s the fake gave those ten. */
    burstRateLimited: number;
  };
}

/**
 * The platforms' pace, through the real channels against the fakes of test/support (whose
 * flood limits are the platforms' own): ten questions at once in one Telegram group, the
 * time from the backend's last byte to Slack receiving chat.stopStream, with a one-second
 * edit interval, and ten native streams at once in one Slack workspace.
 */
export async function benchPace(options: PaceBenchOptions): Promise<PaceResult> {
  const burst = await groupBurst({ scale: options.scale ?? 1, answerMs: 20_000 });
  const ends = await slackStreamEnds({
    answers: options.slackAnswers ?? 20,
    editIntervalMs: 1_000,
  });
  const share = await slackWorkspaceShare({
    answers: 10,
    scale: 1,
    answerMs: 10_000,
    nativeStreaming: true,
  });
  return {
    telegram: {
      firstTextMedianMs: median(burst.firstTextMs),
      firstTextMaxMs: burst.firstTextMs.at(-1) ?? Number.NaN,
      completeAfterEndMedianMs: median(burst.completeAfterEndMs),
      completeAfterEndMaxMs: burst.completeAfterEndMs.at(-1) ?? Number.NaN,
      floodErrors: burst.floodErrors,
      busiestMinute: burst.busiestMinute,
      exact: burst.exact,
    },
    slack: {
      streamEndMedianMs: median(ends),
      streamEndMaxMs: ends.at(-1) ?? Number.NaN,
      answers: ends.length,
      burstChanges: [...share.changesInFiveSeconds].sort((a, b) => a - b),
      burstRateLimited: share.rateLimited,
    },
  };
}

/** The section's table: each figure beside its goal (issue 13). */
export function paceTable(result: PaceResult): string {
  const { telegram: t, slack } = result;
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const rows = [
    {
      figure: "Telegram: 10 questions at once in one group, first text median / max",
      measured: `${s(t.firstTextMedianMs)} / ${s(t.firstTextMaxMs)} s`,
      goal: "≤ 5 / ≤ 10 s",
    },
    {
      figure: "  calls over the limits (429s; most calls in one minute)",
      measured: `${t.floodErrors} (${t.busiestMinute})`,
      goal: "0 (≤ 20)",
    },
    {
      figure: "  complete text after the backend's end, median / max",
      measured: `${s(t.completeAfterEndMedianMs)} / ${s(t.completeAfterEndMaxMs)} s`,
      goal: "",
    },
    {
      figure: "Slack: stream end → complete text, median / max",
      measured: `${slack.streamEndMedianMs.toFixed(1)} / ${slack.streamEndMaxMs.toFixed(1)} ms`,
      goal: "≤ 50 ms",
    },
    {
      figure: "Slack: 10 streams at once in one workspace, changes in 5 s, fewest / median",
      measured: `${slack.burstChanges[0]} / ${median(slack.burstChanges)}`,
      goal: "≥ 3",
    },
    {
      figure: "  calls over the limits (429s)",
      measured: `${slack.burstRateLimited}`,
      goal: "0",
    },
  ];
  return formatTable(
    [
      { heading: "figure", cell: (r: (typeof rows)[number]) => r.figure },
      { heading: "measured", cell: (r) => r.measured },
      { heading: "goal", cell: (r) => r.goal },
    ],
    rows,
  );
}

/** Whether the figures meet the goals. */
export function paceVerdict(result: PaceResult): { pass: boolean; line: string } {
  const { telegram: t, slack } = result;
  const pass =
    t.firstTextMedianMs <= 5_000 &&
    t.firstTextMaxMs <= 10_000 &&
    t.floodErrors === 0 &&
    t.busiestMinute <= 20 &&
    t.exact === 10 &&
    slack.streamEndMedianMs <= 50 &&
    (slack.burstChanges[0] ?? 0) >= 3 &&
    slack.burstRateLimited === 0;
  return {
    pass,
    line: pass
      ? "verdict: PASS — within the platforms' limits, first and final texts at their pace"
      : "verdict: FAIL — see the figures above",
  };
}
