/**
 * Throughput and latency with `wrk` (Debian package), which drives a bare Node proxy about twice
 * as hard as a Node load generator can on these machines (docs/benchmarks.md). The benchmark
 * installs it with `apt-get install -y wrk` when it is missing, and says so. Loopback only.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface WrkSpec {
  url: string;
  connections: number;
  seconds: number;
  headers: Record<string, string>;
  body: string;
}

export interface WrkResult {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  /** Responses with a status other than 2xx/3xx. */
  non2xx: number;
  /** Connect, read, write and timeout errors. */
  socketErrors: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
}

/** Finds wrk, installing the Debian package when it is missing; undefined when that fails. */
export async function ensureWrk(log: (line: string) => void): Promise<string | undefined> {
  const found = await run("which", ["wrk"]).then(
    (r) => r.stdout.trim(),
    () => "",
  );
  if (found !== "") return found;
  log("wrk is not installed: running `apt-get install -y wrk`");
  try {
    await run("apt-get", ["install", "-y", "wrk"], { timeout: 180_000 });
  } catch (error) {
    log(`could not install wrk: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
  return run("which", ["wrk"]).then(
    (r) => r.stdout.trim() || undefined,
    () => undefined,
  );
}

/** A Lua long string that cannot be closed by the text inside it. */
function luaString(text: string): string {
  let level = "=";
  while (text.includes(`]${level}]`)) level += "=";
  return `[${level}[${text}]${level}]`;
}

function script(spec: WrkSpec): string {
  const headers = Object.entries(spec.headers)
    .map(([name, value]) => `wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`)
    .join("\n");
  return `wrk.method = "POST"
wrk.body = ${luaString(spec.body)}
${headers}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRKJSON {\\"requests\\":%d,\\"duration_us\\":%d,\\"non2xx\\":%d,\\"socket\\":%d,\\"p50_us\\":%d,\\"p90_us\\":%d,\\"p99_us\\":%d,\\"p999_us\\":%d,\\"max_us\\":%d}\\n",
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), latency.max))
end
`;
}

export async function runWrk(wrk: string, spec: WrkSpec): Promise<WrkResult> {
  const url = new URL(spec.url);
  if (url.hostname !== "127.0.0.1") throw new Error("wrk runs against 127.0.0.1 only");
  const dir = await mkdtemp(join(tmpdir(), "evident-wrk-"));
  try {
    const file = join(dir, "post.lua");
    await writeFile(file, script(spec));
    const seconds = Math.max(1, Math.round(spec.seconds));
    const { stdout, stderr } = await run(
      wrk,
      ["-t1", `-c${spec.connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", file, spec.url],
      { timeout: (seconds + 30) * 1000 },
    );
    const line = stdout.split("\n").find((l) => l.startsWith("WRKJSON "));
    if (line === undefined) throw new Error(`wrk printed no summary: ${stderr.slice(0, 300)}`);
    const raw = JSON.parse(line.slice("WRKJSON ".length)) as {
      requests: number;
      duration_us: number;
      non2xx: number;
      socket: number;
      p50_us: number;
      p90_us: number;
      p99_us: number;
      p999_us: number;
      max_us: number;
    };
    const elapsed = raw.duration_us / 1e6;
    return {
      requests: raw.requests,
      seconds: elapsed,
      requestsPerSecond: raw.requests / Math.max(elapsed, 1e-6),
      non2xx: raw.non2xx,
      socketErrors: raw.socket,
      p50Ms: raw.p50_us / 1000,
      p90Ms: raw.p90_us / 1000,
      p99Ms: raw.p99_us / 1000,
      p999Ms: raw.p999_us / 1000,
      maxMs: raw.max_us / 1000,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
