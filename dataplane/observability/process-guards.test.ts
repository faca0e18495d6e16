import { spawnSync } from "node:child_process";
import path from "node:path";
import test from "ava";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");

// Run in a child process: the guard changes process-wide handlers (and ava treats an unhandled
// rejection in its own worker as a failure, which is what every other test relies on).
const SCRIPT = `
import { pino } from "pino";
import { installProcessGuards } from "./dataplane/observability/process-guards.ts";
import { runInRequestScope } from "./dataplane/observability/request-scope.ts";
const logs = [];
const logger = pino({ base: null, timestamp: false }, { write: (line) => logs.push(JSON.parse(line)) });
const counts = {};
installProcessGuards(logger, { inc: ({ kind }) => (counts[kind] = (counts[kind] ?? 0) + 1) });
let failed = 0;
runInRequestScope({ requestId: "req_escaped", fail: () => failed++ }, () => {
  void Promise.reject(new Error("a floating rejection"));
  setTimeout(() => { throw new Error("a throwing timer"); }, 5);
});
const until = Date.now() + 60_000;
const poll = setInterval(() => {
  if (failed < 2 && Date.now() < until) return;
  clearInterval(poll);
  process.stdout.write(JSON.stringify({ counts, failed, logs }) + "\\n");
}, 10);
`;

test("an escaped rejection or exception is logged with its request id, fails that request, and the process lives on", (t) => {
  const run = spawnSync(TSX, ["--eval", SCRIPT], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
  t.is(run.status, 0, run.stderr);
  const summary = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as {
    counts: object;
    failed: number;
    logs: Record<string, unknown>[];
  };
  const logs = summary.logs;
  t.deepEqual(summary.counts, { unhandled_rejection: 1, uncaught_exception: 1 });
  t.is(summary.failed, 2);
  t.is(logs.length, 2);
  for (const log of logs) t.is(log.request_id, "req_escaped");
});
