/**
 * What an idle upstream costs a hop at concurrency 1: the round trip to the bench's fake upstream
 * (its own process, as in the wrk section) from a client in this process, by how long the upstream
 * sat idle before each request:
 * - back to back (the next request as soon as the last answer is read; what a bare proxy at c=1
 *   gives its upstream);
 * - after a gap of G µs during which this process keeps its own core busy (what a hop that works
 *   on each call for G µs before forwarding it gives its upstream; the machine has cores to spare,
 *   only the upstream's has gone idle);
 * - after a 1 ms sleep (both sides idle).
 * Rounds of each way take turns, so a loaded machine's swings hit every way alike.
 *
 *   npx tsx bench/upstream-idle-wake.ts [rounds=6] [seconds=1] [gaps=200,400,800]
 *
 * On a virtual machine whose guest halts an idle core at once (no idle polling:
 * /sys/devices/system/cpu/cpuidle/current_driver reads "none"), the upstream's answer takes longer
 * the longer it idled: waking a halted virtual core is slow. A gateway holds each call longer than
 * a bare proxy (guardrails, the durable audit write), so at c=1 its upstream has always been idle
 * longer, and it pays that wake-up in its added latency without doing any of the work itself
 * (docs/benchmarks.md, "Issue 13, fourteenth pass").
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "undici";
import { chatBody, FAST_MODEL } from "./bench-models.js";
import { median, percentile } from "./load/percentile.js";
import { startChild } from "./processes/child-process.js";

const [roundsArg = "6", secondsArg = "1", gapsArg = "200,400,800"] = process.argv.slice(2);
const rounds = Number(roundsArg);
const seconds = Number(secondsArg);
const gapsUs = gapsArg.split(",").map(Number);

type Way = { name: string; before: () => Promise<void> | void };

const spin = (us: number): void => {
  const until = performance.now() + us / 1000;
  while (performance.now() < until);
};
const ways: Way[] = [
  { name: "back to back", before: () => undefined },
  ...gapsUs.map((us) => ({ name: `after ${us} us busy here`, before: () => spin(us) })),
  { name: "after a 1 ms sleep", before: () => sleep(1).then(() => undefined) },
];

const upstream = await startChild<{ url: string }>(
  fileURLToPath(new URL("processes/upstream-process.ts", import.meta.url)),
);
const base = new URL(upstream.info.url);
const path = `${base.pathname.replace(/\/$/, "")}/chat/completions`;
const pool = new Pool(base.origin, { connections: 1, pipelining: 1 });
const body = chatBody(FAST_MODEL, false);

/** One request's time to the answer's headers, in µs. */
async function roundTrip(): Promise<number> {
  const start = performance.now();
  const res = await pool.request({
    path,
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const took = (performance.now() - start) * 1000;
  await res.body.text();
  return took;
}

try {
  const driver = await readFile("/sys/devices/system/cpu/cpuidle/current_driver", "utf8").then(
    (text) => text.trim(),
    () => "(not readable)",
  );
  console.log(`cpuidle driver: ${driver}`);
  for (let i = 0; i < 300; i++) await roundTrip();
  const p50s = new Map<string, number[]>(ways.map((w) => [w.name, []]));
  const p90s = new Map<string, number[]>(ways.map((w) => [w.name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ways : [...ways].reverse();
    for (const way of order) {
      const times: number[] = [];
      const until = performance.now() + seconds * 1000;
      while (performance.now() < until) {
        await way.before();
        times.push(await roundTrip());
      }
      times.sort((a, b) => a - b);
      p50s.get(way.name)?.push(percentile(times, 50));
      p90s.get(way.name)?.push(percentile(times, 90));
    }
  }
  console.log(`upstream round trip at c=1, µs (medians over ${rounds} rounds of ${seconds} s)`);
  const backToBack = median(p50s.get("back to back") ?? []);
  for (const way of ways) {
    const p50 = median(p50s.get(way.name) ?? []);
    const p90 = median(p90s.get(way.name) ?? []);
    const extra = (p50 - backToBack).toFixed(0);
    console.log(
      `${way.name.padEnd(24)} p50 ${p50.toFixed(0).padStart(5)}  p90 ${p90.toFixed(0).padStart(5)}  p50 - back to back ${extra.padStart(5)}`,
    );
  }
} finally {
  await pool.close();
  await upstream.stop();
}
