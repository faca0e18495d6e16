/** Plain-text rendering of a section report: an aligned table, the ratios, the target checks. */
import type { SectionReport } from "../sections/section.js";

export function formatTable(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const line = (row: string[]): string =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  const [header, ...body] = rows;
  if (!header) return "";
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  return [line(header), rule, ...body.map(line)].join("\n");
}

export function formatReport(report: SectionReport): string {
  const lines = [`== ${report.name}`, formatTable(report.table), "", "ratios:"];
  for (const [name, value] of Object.entries(report.ratios)) {
    lines.push(`  ${name.padEnd(48)} ${value === null ? "not measured" : String(value)}`);
  }
  lines.push("", "targets:");
  for (const target of report.targets) {
    const verdict = target.met === undefined ? "n/a " : target.met ? "MET " : "MISS";
    lines.push(`  [${verdict}] ${target.name}: ${String(target.value)} (goal ${target.goal})`);
  }
  for (const note of report.notes) lines.push(`  note: ${note}`);
  return lines.join("\n");
}
