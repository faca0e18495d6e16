import v8 from "node:v8";
import { Worker, type WorkerOptions } from "node:worker_threads";

/**
 * V8's `--max-semi-space-size`, when the process was started with it (npm start and the image set
 * 32), sizes the young generation of every isolate, worker threads included, and overrides a
 * worker's `resourceLimits.maxYoungGenerationSizeMb`. The PGlite worker keeps little alive between
 * scavenges, yet under load its young generation grew to the main thread's 2 x 32 MiB, all of it
 * resident (docs/benchmarks.md, "Issue 13, third pass: the embedded store's memory").
 *
 * startWorkerWithYoungGeneration unsets the flag while the worker's isolate is made (its heap is
 * sized then, from `resourceLimits`) and puts the command line's value back as soon as the worker runs
 * JavaScript. The main thread's heap was sized at start-up and does not read the flag again.
 */
export function startWorkerWithYoungGeneration(
  url: URL,
  options: WorkerOptions,
  youngGenerationMb: number,
): Worker {
  // Read from the command line only (npm start and the image put it there). Given in NODE_OPTIONS
  // instead, it is not seen, and the worker gets the flag's young generation as before.
  const processValue = semiSpaceFlag(process.execArgv);
  if (processValue === undefined) {
    return new Worker(url, { ...options, resourceLimits: limits(options, youngGenerationMb) });
  }
  v8.setFlagsFromString("--max-semi-space-size=0");
  const restore = (): void => v8.setFlagsFromString(`--max-semi-space-size=${processValue}`);
  let worker: Worker;
  try {
    worker = new Worker(url, { ...options, resourceLimits: limits(options, youngGenerationMb) });
  } catch (err) {
    restore();
    throw err;
  }
  let restored = false;
  const restoreOnce = (): void => {
    if (restored) return;
    restored = true;
    restore();
  };
  worker.once("online", restoreOnce);
  worker.once("exit", restoreOnce);
  return worker;
}

function limits(
  options: WorkerOptions,
  youngGenerationMb: number,
): WorkerOptions["resourceLimits"] {
  return { ...options.resourceLimits, maxYoungGenerationSizeMb: youngGenerationMb };
}

/** The last `--max-semi-space-size` value among Node's arguments (V8 takes the last one). */
export function semiSpaceFlag(args: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const match = /^--max[-_]semi[-_]space[-_]size(?:=(.*))?$/.exec(args[i] ?? "");
    if (!match) continue;
    value = match[1] ?? args[i + 1];
  }
  return value;
}
