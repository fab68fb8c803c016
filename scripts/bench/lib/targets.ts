/**
 * A table of figures against their targets, as the project set them. Data-driven: a benchmark
 * lists rows; a row it does not measure keeps its place with `measured: null`, printed as "not
 * measured here" (so the table always shows every target, in its order).
 */
export interface TargetRow {
  figure: string;
  target: string;
  /** What was measured, as printed; null when this run does not measure it. */
  measured: string | null;
  /** Whether the target was met; ignored when `measured` is null. */
  met?: boolean;
  /** Where the figure comes from, when not from this script (a test file, another benchmark). */
  source?: string;
}

function verdict(row: TargetRow): string {
  if (row.measured === null) return `not measured here${row.source ? ` (${row.source})` : ''}`;
  return row.met ? 'met' : 'MISSED';
}

/** Prints `rows` as a Markdown table (figure | target | measured | verdict). */
export function printTargets(rows: readonly TargetRow[], write: (line: string) => void = console.log): void {
  const table = [['figure', 'target', 'measured', ''], ...rows.map((row) => [row.figure, row.target, row.measured ?? '—', verdict(row)])];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  write(line(table[0]!));
  write(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const cells of table.slice(1)) write(line(cells));
}
