/**
 * A preload for a gateway under a probe: V8's sampling heap profiler between two moments, written
 * to /tmp/heap-sampling-<pid>-t<thread>.heapprofile (every thread that loads it: worker threads
 * inherit Node's options). HEAP_SAMPLING_AT=from,to in seconds (default 8,18). HEAP_SAMPLING_KEEP:
 * `all` (default: every allocation, collected or not), `survivors` (only what outlived a
 * young-generation collection: promoted, or still alive), `live` (only what is alive at the end).
 *
 *   SECS=20 PG=... NODE_ARGS="--import=./scripts/profiling/heap-sampling.ts" npx tsx scripts/memory-probe.ts
 *   npx tsx scripts/profiling/heap-sampling-summary.ts /tmp/heap-sampling-<pid>-t0.heapprofile <requests>
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { threadId } from "node:worker_threads";

const [from = 8, to = 18] = (process.env.HEAP_SAMPLING_AT ?? "8,18").split(",").map(Number);
const keep = process.env.HEAP_SAMPLING_KEEP ?? "all";
const session = new Session();
session.connect();
const fail = (err: Error | null): void => {
  if (err) process.stderr.write(`heap sampling: ${err.message}\n`);
};

setTimeout(() => {
  session.post(
    "HeapProfiler.startSampling",
    {
      samplingInterval: 8192,
      includeObjectsCollectedByMajorGC: keep !== "live",
      includeObjectsCollectedByMinorGC: keep === "all",
    },
    fail,
  );
  setTimeout(
    () => {
      session.post("HeapProfiler.stopSampling", (err, result) => {
        if (err) return fail(err);
        const file = `/tmp/heap-sampling-${process.pid}-t${threadId}.heapprofile`;
        writeFileSync(file, JSON.stringify(result.profile));
        process.stderr.write(`heap sampling written: ${file}\n`);
      });
    },
    (to - from) * 1000,
  ).unref();
}, from * 1000).unref();
