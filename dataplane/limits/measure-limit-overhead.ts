import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { systemClock } from "../core/clock.js";
import type { Tier } from "../core/identity.js";
import { newInferenceCall } from "../core/inference-call.js";
import type { PipelineStage } from "../core/pipeline.js";
import { defaultBudget } from "../store/budget-repository.js";
import type { RedisConnection } from "../store/redis-connection.js";
import { limitStage } from "./limit-stage.js";
import { MemoryRateLimiter } from "./memory-rate-limiter.js";
import type { RateLimiter } from "./rate-limits.js";
import { RedisRateLimiter } from "./redis-rate-limiter.js";

export interface OverheadResult {
  mode: "off" | "memory" | "redis";
  calls: number;
  /** Microseconds per call for the limit stage (admit before forwarding + settle after). */
  p50Us: number;
  p99Us: number;
  meanUs: number;
  /** Redis commands (= round trips) per call, admit and settle together; 0 without Redis. */
  redisCommandsPerCall: number;
}

/**
 * The limit stage's own cost per inference call, as the gateway runs it: "off" is a customer
 * without limits (enterprise: no store access), "memory" and "redis" a business-tier customer.
 * Calls run one at a time (spread over 100 customers so none is refused), so the figures are
 * latency added per call, not throughput.
 */
export async function measureLimitOverhead(
  mode: OverheadResult["mode"],
  calls = 2_000,
  redis?: RedisConnection,
): Promise<OverheadResult> {
  let commands = 0;
  let limiter: RateLimiter = new MemoryRateLimiter({ clock: systemClock });
  if (mode === "redis") {
    if (!redis) throw new Error("measureLimitOverhead(redis) needs a connection");
    limiter = new RedisRateLimiter(redis, {
      clock: systemClock,
      failMode: "closed",
      keyPrefix: `evident:bench:${randomBytes(6).toString("hex")}:`,
      onCommand: () => {
        commands += 1;
      },
    });
  }
  const tier: Tier = mode === "off" ? "enterprise" : "business";
  const stage: PipelineStage = limitStage({
    limiter,
    settings: { get: async (id) => defaultBudget(id) },
    defaultMaxTokens: 16,
  });
  const times: number[] = [];
  for (let i = 0; i < calls + 50; i++) {
    const call = newInferenceCall({
      requestId: `req_${i}`,
      endpoint: "chat.completions",
      caller: {
        customer: {
          id: `bench-${i % 100}`,
          name: "bench",
          tier,
          createdAt: new Date(),
          updatedAt: new Date(),
        },
        key: {
          id: "key_bench",
          customerId: "bench",
          name: "bench",
          role: "member",
          classificationFloor: "public",
          hint: "ev_sk_bench",
          createdAt: new Date(),
          lastUsedAt: null,
          revokedAt: null,
        },
      },
      requestedModel: "m",
      body: { model: "m", max_tokens: 16, messages: [{ role: "user", content: "hello there" }] },
      stream: false,
      startedAt: Date.now(),
    });
    if (i === 50) commands = 0;
    const start = performance.now();
    await stage.beforeForward?.(call);
    call.usage = { promptTokens: 2, completionTokens: 5, totalTokens: 7, source: "upstream" };
    await stage.afterCall?.(call);
    if (i >= 50) times.push((performance.now() - start) * 1000);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0);
  return {
    mode,
    calls,
    p50Us: at(0.5),
    p99Us: at(0.99),
    meanUs: Math.round(times.reduce((a, b) => a + b, 0) / times.length),
    redisCommandsPerCall: commands / calls,
  };
}
