import type { CapRow } from "./cap-bench.ts";
import { formatTable } from "./table.ts";

export function capTable(rows: readonly CapRow[]): string {
  return formatTable(
    [
      { heading: "MAX_ACTIVE_ANSWERS", cell: (r: CapRow) => r.cap },
      { heading: "offered", cell: (r) => r.offered },
      { heading: "most in flight", cell: (r) => r.mostActive },
      { heading: "most waiting", cell: (r) => r.mostQueued },
      { heading: "answered", cell: (r) => r.answered },
      { heading: "told busy", cell: (r) => r.toldBusy },
      { heading: "lost", cell: (r) => r.unaccounted },
      { heading: "loop p99 ms", cell: (r) => r.loopP99Ms },
      { heading: "worst s p99 ms", cell: (r) => r.loopWorstP99Ms },
      { heading: "loop max ms", cell: (r) => r.loopMaxMs },
      { heading: "acks", cell: (r) => r.ackEvents },
      { heading: "ack p99 ms", cell: (r) => r.ackP99Ms },
      { heading: "acks late", cell: (r) => r.acksLate },
      { heading: "all done s", cell: (r) => Math.round(r.wallMs / 100) / 10 },
    ],
    rows,
  );
}
