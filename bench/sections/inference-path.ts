/**
 * Section "inference path": the gateway vs the bare baseline proxy vs direct-to-upstream, against
 * the same fake upstream, interleaved round by round (the target order flips every round):
 *   - throughput at 50 connections, JSON chat and SSE chat;
 *   - latency at concurrency 1 (JSON chat), p50 / p99;
 *   - time to first token on paced streams (10 chunks, 20 ms apart), concurrency 1;
 *   - every SSE response checked chunk by chunk against what the upstream sent.
 */
import type { Pool } from "undici";
import { chatBody, FAST_MODEL, FAST_PIECES, PACED_MODEL, PACED_PIECES } from "../bench-models.js";
import { openTarget, runLoad, type LoadRequest, type LoadSpec } from "../load/load-generator.js";
import { summarise, type Measurements, type Run, type ScenarioName } from "./inference-summary.js";
import type { Section, SectionContext, SectionReport } from "./section.js";
import { startTargets, type Target } from "./inference-targets.js";

const THROUGHPUT_CONNECTIONS = 50;

interface Scenario {
  name: ScenarioName;
  connections: number;
  maxRequests: number;
  seconds: (context: SectionContext) => number;
  request: (target: Target) => LoadRequest;
}

const chat = (
  target: Target,
  model: string,
  stream: boolean,
  expected?: readonly string[],
): LoadRequest => ({
  path: `${new URL(target.base).pathname}/chat/completions`,
  body: chatBody(model, stream),
  headers: target.headers,
  kind: stream ? "sse" : "json",
  expected,
});

const SCENARIOS: Scenario[] = [
  {
    name: "json-throughput",
    connections: THROUGHPUT_CONNECTIONS,
    maxRequests: 500_000,
    seconds: (c) => c.options.throughputSeconds,
    request: (t) => chat(t, FAST_MODEL, false),
  },
  {
    name: "sse-throughput",
    connections: THROUGHPUT_CONNECTIONS,
    maxRequests: 500_000,
    seconds: (c) => c.options.throughputSeconds,
    request: (t) => chat(t, FAST_MODEL, true, FAST_PIECES),
  },
  {
    name: "json-latency",
    connections: 1,
    maxRequests: 5_000,
    seconds: (c) => c.options.latencySeconds,
    request: (t) => chat(t, FAST_MODEL, false),
  },
  {
    name: "paced-ttft",
    connections: 1,
    maxRequests: 0, // set from options.pacedStreams
    seconds: () => 30,
    request: (t) => chat(t, PACED_MODEL, true, PACED_PIECES),
  },
];

/** One load run, with the CPU time the hop and the upstream spent on it, per request. */
async function measureRun(pool: Pool, target: Target, spec: LoadSpec): Promise<Run> {
  const hopBefore = await target.hopCpuUs?.();
  const upstreamBefore = await target.upstreamCpuUs();
  const load = await runLoad(pool, spec);
  const hopAfter = await target.hopCpuUs?.();
  const upstreamAfter = await target.upstreamCpuUs();
  const per = (after: number, before: number): number =>
    (after - before) / Math.max(1, load.completed);
  return {
    ...load,
    hopCpuUsPerRequest:
      hopAfter === undefined || hopBefore === undefined ? undefined : per(hopAfter, hopBefore),
    upstreamCpuUsPerRequest: per(upstreamAfter, upstreamBefore),
  };
}

async function warmUp(pool: Pool, target: Target): Promise<void> {
  await runLoad(pool, {
    connections: 10,
    maxRequests: 400,
    maxSeconds: 5,
    request: chat(target, FAST_MODEL, false),
  });
  const sse = chat(target, FAST_MODEL, true, FAST_PIECES);
  await runLoad(pool, { connections: 10, maxRequests: 200, maxSeconds: 5, request: sse });
}

export const inferencePathSection: Section = {
  name: "inference path: gateway vs bare proxy vs direct",
  async run(context: SectionContext): Promise<SectionReport> {
    const { targets, gatewayMissing, stop } = await startTargets(context.log, context.options);
    const pools = new Map(targets.map((t) => [t.name, openTarget(t.base, THROUGHPUT_CONNECTIONS)]));
    const measurements: Measurements = new Map();
    try {
      for (const target of targets) await warmUp(pools.get(target.name) as Pool, target);
      for (let round = 0; round < context.options.rounds; round += 1) {
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const scenario of SCENARIOS) {
          for (const target of order) {
            const result = await measureRun(pools.get(target.name) as Pool, target, {
              connections: scenario.connections,
              maxRequests: scenario.maxRequests || context.options.pacedStreams,
              maxSeconds: scenario.seconds(context),
              request: scenario.request(target),
            });
            const key = `${scenario.name}/${target.name}` as const;
            measurements.set(key, [...(measurements.get(key) ?? []), result]);
          }
        }
        context.log(
          `round ${round + 1}/${context.options.rounds} done (order: ${order.map((t) => t.name).join(", ")})`,
        );
      }
    } finally {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      await stop();
    }
    return summarise(
      this.name,
      targets.map((t) => t.name),
      measurements,
      gatewayMissing,
      context.options,
    );
  },
};
