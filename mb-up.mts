import { Pool } from "undici";
import { startChild } from "./bench/processes/child-process.js";
import { UpstreamClient } from "./dataplane/upstream/upstream-client.js";
import { chatBody, FAST_MODEL } from "./bench/bench-models.js";
const up = await startChild<{ url: string }>(new URL("./bench/processes/upstream-process.ts", import.meta.url).pathname);
const base = up.info.url;
const client = new UpstreamClient({ connections: 256, connectMs: 5000, headersMs: 120000, bodyMs: 300000, policy: { allows: () => true, lookup: undefined } as never, hopToken: "x".repeat(43) });
const target = { id: "t1", kind: "deployment", baseUrl: base, upstreamModel: FAST_MODEL, credential: undefined } as never;
const u = new URL(base); const pool = new Pool(u.origin, { connections: 256, pipelining: 1 });
const body = chatBody(FAST_MODEL, false);
async function viaClient() {
  const ac = new AbortController();
  const r = await client.send(target, { path: "/chat/completions", method: "POST", body, headers: { accept: "application/json", "x-request-id": "req_0123456789abcdef0123456789abcdef", "content-type": "application/json" }, hops: 0, signal: ac.signal });
  await r.body.text();
}
async function viaPool() {
  const ac = new AbortController();
  const r = await pool.request({ method: "POST", path: u.pathname + "/chat/completions", headers: { "content-type": "application/json", authorization: "Bearer bench-not-checked", "content-length": String(body.length), "user-agent": "wrk" }, body, signal: ac.signal });
  await r.body.text();
}
async function run(f: () => Promise<void>, n: number) {
  let left = n; const c0 = process.cpuUsage();
  await Promise.all(Array.from({ length: 50 }, async () => { while (left-- > 0) await f(); }));
  const c = process.cpuUsage(c0); return (c.user + c.system) / n;
}
await run(viaClient, 3000); await run(viaPool, 3000);
const rc: number[] = [], rp: number[] = [];
for (let i = 0; i < 8; i++) { rc.push(await run(viaClient, 3000)); rp.push(await run(viaPool, 3000)); }
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!.toFixed(1);
console.log("client.send", med(rc), "us   pool.request", med(rp), "us");
await client.close(); await pool.close(); await up.stop(); process.exit(0);
