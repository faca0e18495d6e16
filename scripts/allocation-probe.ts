/**
 * Where a gateway's garbage comes from, per request, under load: V8's sampling heap profiler in
 * the gateway's main isolate (through its inspector, with the objects later collected by a
 * scavenge or a full collection kept in the profile), while `wrk -t1 -c50` drives JSON chat with a
 * default-policy key (OFF=1: every guardrail off; SSE=1: the bench's 5-chunk stream) for SECS
 * seconds (default 8), after a 3 s warm-up. Prints the bytes allocated per request, then the
 * functions that allocated most (self, or with MODE=incl everything below them too; TOP=n rows).
 * The embedded store on a fresh DATA_DIR, or with PG=<postgres server URL> a fresh database.
 * Garbage costs twice: the scavenges on the event loop and V8's helper threads
 * (docs/benchmarks.md, "Issue 13, eighteenth pass").
 *
 *   npx tsx scripts/allocation-probe.ts
 */
import WebSocket from "ws";
import { chatBody, FAST_MODEL } from "../bench/bench-models.js";
import { ensureWrk, runWrk } from "../bench/load/wrk.js";
import { startProbeGateway } from "../bench/processes/probe-gateway.js";

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const seconds = Number(process.env.SECS ?? 8);
const top = Number(process.env.TOP ?? 30);
const inspectPort = 9339;

/** A minimal Chrome DevTools Protocol client: one request at a time is all this needs. */
async function connectInspector(): Promise<{
  send: (method: string, params?: object) => Promise<unknown>;
  close: () => void;
}> {
  const list = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const target = list[0];
  if (target === undefined) throw new Error("the gateway's inspector lists no target");
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  let nextId = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        nextId += 1;
        waiting.set(nextId, resolve);
        socket.send(JSON.stringify({ id: nextId, method, params }));
      }),
    close: () => socket.close(),
  };
}

const frameName = (node: ProfileNode): string => {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/.*\/(dataplane|node_modules|bench)\//, "$1/");
  return `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
};

/** Bytes by function: self, and inclusive (each function counted once per path). */
function tally(root: ProfileNode): {
  total: number;
  self: Map<string, number>;
  incl: Map<string, number>;
} {
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode, above: Set<string>): number => {
    const name = frameName(node);
    self.set(name, (self.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    const path = new Set(above).add(name);
    let sum = node.selfSize;
    for (const child of node.children) sum += walk(child, path);
    if (!above.has(name)) incl.set(name, (incl.get(name) ?? 0) + sum);
    return sum;
  };
  walk(root, new Set());
  return { total, self, incl };
}

const wrk = await ensureWrk((line) => console.error(line));
if (wrk === undefined) throw new Error("wrk is needed");
const probe = await startProbeGateway({
  name: "allocation-probe",
  postgresUrl: process.env.PG,
  guardrailsOff: process.env.OFF === "1",
  nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`],
});
try {
  const { url, key } = probe;
  const load = {
    url: `${url}/v1/chat/completions`,
    connections: 50,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: chatBody(FAST_MODEL, process.env.SSE === "1"),
  };
  await runWrk(wrk, { ...load, seconds: 3 });
  const inspector = await connectInspector();
  try {
    await inspector.send("HeapProfiler.enable");
    await inspector.send("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    const result = await runWrk(wrk, { ...load, seconds });
    const stopped = (await inspector.send("HeapProfiler.stopSampling")) as {
      profile: { head: ProfileNode };
    };
    const requests = Math.max(1, result.requests);
    const { total, self, incl } = tally(stopped.profile.head);
    console.log(
      `requests ${result.requests} req/s ${result.requestsPerSecond.toFixed(0)}; ` +
        `allocated ${(total / requests).toFixed(0)} bytes per request (sampled every 4 KiB)`,
    );
    const rows = process.env.MODE === "incl" ? incl : self;
    for (const [name, bytes] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`${(bytes / requests).toFixed(0).padStart(8)}  ${name}`);
  } finally {
    inspector.close();
  }
} finally {
  await probe.stop();
}
