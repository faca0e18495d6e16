/**
 * Runs a bench/ module in its own Node process (so load generator, proxies and upstream do not
 * share one event loop) and reads the one JSON line it prints when it is ready.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { CpuReply } from "./child-control.js";

export interface Child<T> {
  info: T;
  /** The child's process id (for signals such as --heapsnapshot-signal). */
  pid: number | undefined;
  /** CPU time (user + system) the child has used so far, in microseconds. */
  cpuUs(): Promise<number>;
  /** CPU time so far (µs) and resident set size now (bytes). */
  stats(): Promise<CpuReply>;
  stop(): Promise<void>;
}

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const running = new Set<ChildProcess>();

process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export async function startChild<T>(
  modulePath: string,
  args: string[] = [],
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<Child<T>> {
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", modulePath, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "inherit"],
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  exited.then(() => running.delete(child)).catch(() => undefined);
  // The channel is the child's JSON lines; anything else it prints on stdout (V8's --trace-gc,
  // say, given as a Node option) goes to this process's stderr.
  const lines = new EventEmitter();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    if (line.startsWith("{")) lines.emit("line", line);
    else process.stderr.write(`${line}\n`);
  });
  const info = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${modulePath} not ready in time`)),
      READY_TIMEOUT_MS,
    );
    lines.once("line", (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as T);
      } catch {
        reject(new Error(`${modulePath} printed no JSON line`));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${modulePath} exited with code ${code}`));
    });
  });
  // Later lines answer "cpu" queries, one line per query, in order.
  const waiting: ((line: string) => void)[] = [];
  lines.on("line", (line) => waiting.shift()?.(line));
  const stats = (): Promise<CpuReply> =>
    new Promise<CpuReply>((resolve, reject) => {
      waiting.push((line) => {
        try {
          resolve(JSON.parse(line) as CpuReply);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      child.stdin?.write("cpu\n");
    });
  return {
    info,
    pid: child.pid,
    stats,
    cpuUs: async () => (await stats()).cpuUs,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
