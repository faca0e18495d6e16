/**
 * How long a reply waits for its audit record to be durable at concurrency 1: one record appended
 * to the local log (AuditSpool.append) at a time, many times, and the raw ways of making an append
 * durable beside it, interleaved so that a loaded machine's swings hit every way alike:
 * - this tree's AuditSpool.append, and, given a second tree, that tree's (before/after);
 * - write + fdatasync (two trips through libuv's thread pool);
 * - one write on a descriptor opened with O_DSYNC (one trip);
 * - the same on a preallocated, zero-filled file (an overwrite: no file size to journal).
 *
 *   npx tsx bench/audit-append-latency.ts [before-tree] [appends=2000] [--under-load]
 *
 * `--under-load`: the same appends again while `wrk -c1` drives the bare proxy in front of the fake
 * upstream (other processes, none of which touches the disk), as the wrk section's c=1 latency run
 * keeps the machine's cores busy. On the machines of issue 13 the same synced write took about
 * twice as long then: the added latency at c=1 pays that, not the gateway's code.
 *
 * Files are written under this tree (its disk, as the gateway's DATA_DIR would be) and removed.
 */
import { constants as fsConstants } from "node:fs";
import { mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AuditSpool } from "../dataplane/audit/audit-spool.js";
import { percentile } from "./load/percentile.js";
import { ensureWrk, runWrk } from "./load/wrk.js";
import { CHAT_SIZED_RECORD as record } from "./sections/wrk-disk-floor.js";
import { chatSpec, startWrkTargets } from "./sections/wrk-targets.js";

const underLoad = process.argv.includes("--under-load");
const [beforeTree, appendsArg] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
const appends = Number(appendsArg ?? 2000);
const root = fileURLToPath(new URL("..", import.meta.url));
const dir = await mkdtemp(join(root, ".audit-append-latency-"));
const { O_WRONLY, O_CREAT, O_EXCL, O_DSYNC } = fsConstants;

const line = Buffer.from(`${JSON.stringify(record)}\n`);

type Append = () => Promise<void>;

async function spoolWay(spoolClass: typeof AuditSpool, name: string): Promise<Append> {
  const spool = await spoolClass.open(join(dir, name), 2 ** 40);
  closers.push(() => spool.close());
  return () => spool.append([record]);
}

async function rawWay(name: string, flags: number, sync: boolean, prealloc: boolean) {
  const file: FileHandle = await open(join(dir, name), flags);
  closers.push(() => file.close());
  if (prealloc) {
    const zeros = Buffer.alloc(line.length * (appends + 1));
    await file.write(zeros, 0, zeros.length, 0);
    await file.sync();
  }
  let at = 0;
  return async () => {
    await file.write(line, 0, line.length, at);
    if (sync) await file.datasync();
    at += line.length;
  };
}

/** `appends` rounds of every way, order reversed every other round; µs per append by way. */
async function sample(ways: [string, Append][]): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(ways.map(([name]) => [name, []]));
  for (let i = 0; i < appends; i++) {
    const order = i % 2 === 0 ? ways : [...ways].reverse();
    for (const [name, append] of order) {
      const start = performance.now();
      await append();
      samples.get(name)?.push((performance.now() - start) * 1000);
    }
  }
  return samples;
}

/** The same, while wrk -c1 drives the bare proxy (started here with its upstream) throughout. */
async function sampleUnderLoad(ways: [string, Append][]): Promise<Map<string, number[]>> {
  const wrk = await ensureWrk((l) => console.log(l));
  if (wrk === undefined) throw new Error("--under-load needs wrk");
  const targets = await startWrkTargets(() => undefined, {
    postgresUrl: undefined,
    gatewayProfileDir: undefined,
    stores: [],
  });
  try {
    const spec = chatSpec(targets.baseline, 1);
    // Long enough to outlast the sampling (a loaded append rarely takes 2 ms); waited for after.
    const load = runWrk(wrk, {
      ...spec,
      seconds: Math.ceil((appends * ways.length * 2) / 1000) + 3,
    });
    await new Promise((r) => setTimeout(r, 1000));
    const samples = await sample(ways);
    await load;
    return samples;
  } finally {
    await targets.stop();
  }
}

function report(when: string, samples: Map<string, number[]>): void {
  console.log(`${appends} appends of ${line.length} bytes each way, interleaved, ${when}; µs`);
  console.log(`${"way".padEnd(32)}     p50     p90     p99`);
  for (const [name, xs] of samples) {
    const cols = [50, 90, 99].map((p) => percentile(xs, p).toFixed(0).padStart(7));
    console.log(`${name.padEnd(32)} ${cols.join(" ")}`);
  }
}

const closers: (() => Promise<void>)[] = [];
try {
  const ways: [string, Append][] = [
    ["AuditSpool.append (this tree)", await spoolWay(AuditSpool, "spool-after")],
  ];
  if (beforeTree) {
    const url = pathToFileURL(resolve(beforeTree, "dataplane/audit/audit-spool.ts")).href;
    const before = ((await import(url)) as { AuditSpool: typeof AuditSpool }).AuditSpool;
    ways.push(["AuditSpool.append (before tree)", await spoolWay(before, "spool-before")]);
  }
  const create = O_WRONLY | O_CREAT | O_EXCL;
  ways.push(
    ["write + fdatasync", await rawWay("raw-fdatasync", create, true, false)],
    ["O_DSYNC write (append)", await rawWay("raw-dsync", create | O_DSYNC, false, false)],
    ["O_DSYNC write (preallocated)", await rawWay("raw-prealloc", create | O_DSYNC, false, true)],
  );
  report("machine otherwise idle", await sample(ways));
  if (underLoad) report("while wrk -c1 drives the bare proxy", await sampleUnderLoad(ways));
} finally {
  for (const close of closers) await close().catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
