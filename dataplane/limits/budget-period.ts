/** Budget periods in UTC: the key that names the current period and its bounds. */

export const BUDGET_PERIODS = ["monthly", "weekly", "daily"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

const DAY_MS = 86_400_000;

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** Start (inclusive) and end (exclusive) of the period containing `now`, in ms since the epoch. */
export function periodBounds(period: BudgetPeriod, now: number): { start: number; end: number } {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const dayStart = Date.UTC(y, m, d.getUTCDate());
  switch (period) {
    case "monthly":
      return { start: Date.UTC(y, m, 1), end: Date.UTC(y, m + 1, 1) };
    case "daily":
      return { start: dayStart, end: dayStart + DAY_MS };
    case "weekly": {
      const sinceMonday = (d.getUTCDay() + 6) % 7; // ISO weeks start on Monday
      const start = dayStart - sinceMonday * DAY_MS;
      return { start, end: start + 7 * DAY_MS };
    }
  }
}

/** "2026-11" (monthly), "2026-W47" (ISO week), "2026-11-22" (daily). */
export function periodKey(period: BudgetPeriod, now: number): string {
  const d = new Date(now);
  switch (period) {
    case "monthly":
      return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
    case "daily":
      return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
    case "weekly": {
      // The ISO week-numbering year is the year of the week's Thursday.
      const thursday = new Date(periodBounds("weekly", now).start + 3 * DAY_MS);
      const year = thursday.getUTCFullYear();
      const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
      return `${year}-W${pad(week)}`;
    }
  }
}
