/**
 * Measures the Envoy adapters through the "Envoy plays" test double (Envoy cannot run here):
 * Check round trips per second and their latency (headers only), and the ext_proc cost of one
 * request (every message Envoy sends and our answers, the pipeline's admit and finish included,
 * the backend's own time excluded) for a JSON answer and for a 20-chunk SSE stream.
 * For `npm run bench` (bench/ is owned elsewhere): call `measureEnvoyAdapters` from there.
 */
import { performance } from "node:perf_hooks";
import { connectEnvoy, ExtProcSession, sendCheck } from "./envoy-client.js";

export interface EnvoyBenchOptions {
  /** The data plane's gRPC address, e.g. "127.0.0.1:9090". */
  address: string;
  /** A customer key that may call `model` (use a tier whose rate limit will not trip). */
  key: string;
  model: string;
  checks?: number;
  concurrency?: number;
  exchanges?: number;
}

export interface EnvoyBenchResult {
  /** Throughput with `concurrency` callers; latency (the added latency per request) one at a time. */
  check: {
    roundTripsPerSecond: number;
    concurrency: number;
    p50Ms: number;
    p99Ms: number;
  };
  extProcJson: { p50Ms: number; p99Ms: number; requests: number };
  extProcStream20: { p50Ms: number; p99Ms: number; requests: number };
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length));
  return Math.round((sorted[at] ?? 0) * 1000) / 1000;
}

const JSON_ANSWER = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 0,
  model: "bench",
  choices: [
    { index: 0, message: { role: "assistant", content: "a short answer" }, finish_reason: "stop" },
  ],
  usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
});

function sseChunks(count: number): string[] {
  const chunk = (content: string) =>
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "bench", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  return Array.from({ length: count }, (_, i) => chunk(`word${i} `));
}

export async function measureEnvoyAdapters(options: EnvoyBenchOptions): Promise<EnvoyBenchResult> {
  const envoy = connectEnvoy(options.address);
  const headers = {
    authorization: `Bearer ${options.key}`,
    "content-type": "application/json",
  };
  const request = { method: "POST", path: "/v1/chat/completions", headers };
  try {
    // Check: warm up (key cache, connection), then `concurrency` callers in a loop.
    for (let i = 0; i < 20; i++) await sendCheck(envoy.authorization, request);
    const checks = options.checks ?? 2000;
    const concurrency = options.concurrency ?? 8;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < checks) {
          next += 1;
          const outcome = await sendCheck(envoy.authorization, request);
          if (outcome.kind !== "allowed") throw new Error(`check not allowed: ${outcome.kind}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const sequential: number[] = [];
    for (let i = 0; i < 500; i++) {
      const t0 = performance.now();
      await sendCheck(envoy.authorization, request);
      sequential.push(performance.now() - t0);
    }

    const exchanges = options.exchanges ?? 200;
    const one = async (stream: boolean): Promise<number> => {
      const body = JSON.stringify({
        model: options.model,
        messages: [{ role: "user", content: "benchmark prompt" }],
        stream,
      });
      const t0 = performance.now();
      const session = new ExtProcSession(envoy.externalProcessor, { ...request, body });
      await session.requestHeaders();
      const admitted = await session.requestBody(body, { endOfStream: true });
      if (admitted.kind !== "continued") throw new Error(`request not admitted: ${admitted.kind}`);
      if (stream) {
        await session.responseHeaders(200, { "content-type": "text/event-stream" });
        for (const chunk of sseChunks(20)) await session.responseBody(chunk);
        await session.responseBody("data: [DONE]\n\n", { endOfStream: true });
      } else {
        await session.responseHeaders(200, { "content-type": "application/json" });
        await session.responseBody(JSON_ANSWER, { endOfStream: true });
      }
      await session.end();
      return performance.now() - t0;
    };
    const run = async (stream: boolean) => {
      for (let i = 0; i < 10; i++) await one(stream);
      const samples: number[] = [];
      for (let i = 0; i < exchanges; i++) samples.push(await one(stream));
      return {
        p50Ms: percentile(samples, 50),
        p99Ms: percentile(samples, 99),
        requests: exchanges,
      };
    };
    const extProcJson = await run(false);
    const extProcStream20 = await run(true);
    return {
      check: {
        roundTripsPerSecond: Math.round(checks / seconds),
        concurrency,
        p50Ms: percentile(sequential, 50),
        p99Ms: percentile(sequential, 99),
      },
      extProcJson,
      extProcStream20,
    };
  } finally {
    envoy.close();
  }
}
