/** A column of a printed table: its heading (with the unit) and how a row shows in it. */
export interface Column<Row> {
  heading: string;
  /** null and NaN show as "n/a" (JSON turns NaN into null on its way between processes). */
  cell(row: Row): string | number | null;
}

/** Formats rows as an aligned text table: the first column left-aligned, the rest right. */
export function formatTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): string {
  const cells = rows.map((row) => columns.map((c) => show(c.cell(row))));
  const widths = columns.map((c, i) =>
    Math.max(c.heading.length, ...cells.map((line) => (line[i] ?? "").length)),
  );
  const format = (line: readonly string[]) =>
    line
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [format(columns.map((c) => c.heading)), ...cells.map(format)].join("\n");
}

function show(value: string | number | null): string {
  if (typeof value === "string") return value;
  if (value === null || Number.isNaN(value)) return "n/a";
  return value.toLocaleString("en-US", { maximumFractionDigits: 2 });
}
