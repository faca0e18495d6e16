import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import { within } from "../support/within.js";

/** What one fuzz run saw. */
export interface FuzzReport {
  requests: number;
  byStatus: Record<string, number>;
  /** Invariant violations, each with enough to replay it. */
  violations: string[];
  /** Request ids of authenticated inference calls: each must leave an audit record. */
  inferenceRequestIds: string[];
}

export function newReport(): FuzzReport {
  return { requests: 0, byStatus: {}, violations: [], inferenceRequestIds: [] };
}

/**
 * The invariants of one HTTP answer: a request id always; never a 5xx other than a documented
 * 502/503; every error in the envelope.
 */
export function checkAnswer(
  report: FuzzReport,
  label: string,
  answer: { status: number; requestId: string | null; text: string },
  documented: Record<string, unknown>,
): void {
  report.requests++;
  report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
  const fail = (why: string) =>
    report.violations.push(
      `${label}: ${why} (status ${answer.status}, ${answer.text.slice(0, 200)})`,
    );
  if (!answer.requestId) fail("no X-Request-ID");
  if (
    answer.status >= 500 &&
    !((answer.status === 502 || answer.status === 503) && documented[answer.status])
  ) {
    fail("undocumented 5xx");
  }
  if (answer.status >= 400) {
    try {
      const body = JSON.parse(answer.text) as { error?: Record<string, unknown> };
      const e = body.error;
      if (
        !e ||
        typeof e.message !== "string" ||
        typeof e.type !== "string" ||
        typeof e.code !== "string"
      ) {
        fail("error without the envelope");
      }
    } catch {
      fail("error body is not JSON");
    }
  }
}

/** Every authenticated inference call has its audit record (the writer may lag: waits). */
export async function checkAuditRecords(
  report: FuzzReport,
  url: string,
  adminKey: string,
  timeoutMs = 60_000,
): Promise<void> {
  const missing = new Set(report.inferenceRequestIds);
  await within(timeoutMs, async () => {
    for (const id of [...missing]) {
      const res = await fetch(`${url}/api/v1/audit/records?request_id=${encodeURIComponent(id)}`, {
        headers: { authorization: `Bearer ${adminKey}` },
      });
      const body = (await res.json()) as { data?: unknown[] };
      if ((body.data ?? []).length > 0) missing.delete(id);
    }
    return missing.size === 0;
  });
  for (const id of missing) report.violations.push(`no audit record for inference call ${id}`);
}

/** After the run, a new call's record still reaches the store (ingestion is not stuck). */
export async function checkAuditStillMoving(
  report: FuzzReport,
  url: string,
  adminKey: string,
): Promise<void> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "fuzz-after-run", messages: [{ role: "user", content: "hi" }] }),
  });
  await res.text();
  const id = res.headers.get("x-request-id") ?? "";
  const before = report.violations.length;
  report.inferenceRequestIds = [id];
  await checkAuditRecords(report, url, adminKey);
  if (report.violations.length > before) report.violations.push("audit ingestion stopped moving");
}

/** The heap after a full collection, in bytes. */
export function settledHeapBytes(): number {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
