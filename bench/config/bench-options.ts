/**
 * Benchmark options: the only place in bench/ that reads the environment.
 * BENCH_ROUNDS: interleaved rounds (default 5, the least the issue accepts for a reported result).
 * BENCH_SECONDS: length of each throughput run, in seconds (default 2).
 * BENCH_CPU_PROFILE=1: write a V8 CPU profile of the gateway process to .bench/profile/.
 * BENCH_POSTGRES_URL: run the gateway on a fresh database on this Postgres server instead of the
 *   in-memory embedded PGlite (the database work then runs in Postgres, not in the gateway); the
 *   wrk section measures both stores side by side when it is set.
 * BENCH_SOAK_SECONDS: length of the soak section (default 0: skipped; 600 for the figure).
 * BENCH_SECTIONS: comma-separated section keys to run (default all; see bench/run.ts).
 * BENCH_QUICK=1: one round of 1 s runs, for a quick look (not for reported results).
 * BENCH_CACHE_STORES: comma-separated stores of the cache section's lookup costs (pgvector, scan,
 *   postgres; default all, postgres only with BENCH_POSTGRES_URL).
 */
export interface BenchOptions {
  rounds: number;
  /** Length of each throughput run (50 connections), in seconds. */
  throughputSeconds: number;
  /** Length of each concurrency-1 latency run, in seconds. */
  latencySeconds: number;
  /** Paced streams per target per round, for time to first token. */
  pacedStreams: number;
  /** Where the last results are written. */
  outputFile: string;
  /** Where the gateway process writes a .cpuprofile on exit; undefined: no profile. */
  gatewayProfileDir: string | undefined;
  /** Postgres server for the gateway's store; undefined: in-memory PGlite in the gateway process. */
  postgresUrl: string | undefined;
  /** Redis for the limits section (BENCH_REDIS_URL, default the local server when it answers). */
  redisUrl: string;
  /** Soak length in seconds; 0: no soak. */
  soakSeconds: number;
  /** Section keys to run; undefined: all. */
  sections: string[] | undefined;
  /** The cache section's stores (pgvector, scan, postgres); undefined: all. */
  cacheStores: string[] | undefined;
}

function positiveNumber(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`invalid environment variable ${name}: must be a positive number`);
  }
  return value;
}

function postgresUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new Error("invalid environment variable BENCH_POSTGRES_URL: must be a postgres:// URL");
  }
  return raw;
}

export function benchOptionsFromProcess(): BenchOptions {
  const quick = process.env.BENCH_QUICK === "1";
  const rounds = Math.max(
    1,
    Math.round(positiveNumber("BENCH_ROUNDS", process.env.BENCH_ROUNDS, quick ? 1 : 5)),
  );
  const seconds = positiveNumber("BENCH_SECONDS", process.env.BENCH_SECONDS, quick ? 1 : 2);
  const soak = process.env.BENCH_SOAK_SECONDS;
  const sections = process.env.BENCH_SECTIONS;
  const cacheStores = process.env.BENCH_CACHE_STORES;
  return {
    rounds,
    throughputSeconds: seconds,
    latencySeconds: Math.max(0.5, seconds * 0.75),
    pacedStreams: 8,
    outputFile: ".bench/last.json",
    gatewayProfileDir: process.env.BENCH_CPU_PROFILE === "1" ? ".bench/profile" : undefined,
    postgresUrl: postgresUrl(process.env.BENCH_POSTGRES_URL),
    redisUrl: process.env.BENCH_REDIS_URL || "redis://127.0.0.1:6379",
    soakSeconds:
      soak === undefined || soak === "0" ? 0 : positiveNumber("BENCH_SOAK_SECONDS", soak, 0),
    sections: sections ? sections.split(",").map((s) => s.trim()) : undefined,
    cacheStores: cacheStores ? cacheStores.split(",").map((s) => s.trim()) : undefined,
  };
}
