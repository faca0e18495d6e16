/**
 * Run as `node --max-semi-space-size=2 --import tsx young-generation-child.ts` by
 * dataplane/store/worker-young-generation.test.ts: starts a worker with its own young generation
 * (startWorkerWithYoungGeneration, 24 MB), then a plain worker, lets each allocate short-lived
 * objects until its young generation stops growing, and prints the new space each ended with (MiB).
 */
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { startWorkerWithYoungGeneration } from "../../dataplane/store/worker-young-generation.js";

const ALLOCATE = `
  import v8 from "node:v8";
  import { parentPort } from "node:worker_threads";
  let kept = [];
  for (let i = 0; i < 4e6; i++) {
    kept.push({ i, text: "x" + i });
    if (kept.length > 20000) kept = [];
  }
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
  parentPort.postMessage(Math.round(space.space_size / 2 ** 20));
`;
const source = new URL(`data:text/javascript,${encodeURIComponent(ALLOCATE)}`);

async function newSpaceOf(worker: Worker): Promise<number> {
  const [mib] = (await once(worker, "message")) as [number];
  await worker.terminate();
  return mib;
}

const own = await newSpaceOf(startWorkerWithYoungGeneration(source, {}, 24));
const plain = await newSpaceOf(new Worker(source));
console.log(JSON.stringify({ own, plain }));
