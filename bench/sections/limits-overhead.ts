/**
 * Rate-limit cost per call: the limit stage off (enterprise, no store access), in memory, and on
 * Redis, measured one call at a time in this run, with Redis round trips per call.
 */
import {
  measureLimitOverhead,
  type OverheadResult,
} from "../../dataplane/limits/measure-limit-overhead.js";
import { connectRedis } from "../../dataplane/store/redis-connection.js";
import type { Section, SectionReport } from "./section.js";

export const limitsOverheadSection: Section = {
  name: "rate limits: added latency per call (limit stage)",
  async run({ options, log }): Promise<SectionReport> {
    const results: OverheadResult[] = [];
    for (const mode of ["off", "memory"] as const) {
      log(`limits: ${mode}`);
      results.push(await measureLimitOverhead(mode, 3_000));
    }
    const notes: string[] = [];
    try {
      const redis = await connectRedis(options.redisUrl);
      try {
        log("limits: redis");
        results.push(await measureLimitOverhead("redis", 3_000, redis));
      } finally {
        await redis.close();
      }
    } catch {
      notes.push(`no Redis at ${options.redisUrl}: the redis row is missing (set BENCH_REDIS_URL)`);
    }
    const off = results[0]?.p50Us ?? 0;
    const row = (r: OverheadResult) => [
      r.mode,
      r.p50Us.toFixed(1),
      r.p99Us.toFixed(1),
      (r.p50Us - off).toFixed(1),
      String(r.redisCommandsPerCall),
    ];
    const redis = results.find((r) => r.mode === "redis");
    return {
      name: this.name,
      table: [
        ["mode", "p50 us", "p99 us", "added p50 us vs off", "redis round trips/call"],
        ...results.map(row),
      ],
      ratios: {
        memory_added_p50_us: (results[1]?.p50Us ?? 0) - off,
        redis_added_p50_us: redis ? redis.p50Us - off : null,
        redis_round_trips_per_call: redis ? redis.redisCommandsPerCall : null,
      },
      targets: [],
      notes,
      data: results,
    };
  },
};
