import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatBody, FAST_MODEL, PACED_MODEL } from "./bench/bench-models.js";
import { ensureWrk, runWrk } from "./bench/load/wrk.js";
import { createMemberKey, GUARDRAILS_OFF, registerBenchModels } from "./bench/gateway-setup.js";
import { startChild } from "./bench/processes/child-process.js";
import { startGateway } from "./bench/processes/gateway-child.js";
const wrk = (await ensureWrk(console.log))!;
const upstream = await startChild<{ url: string }>(new URL("./bench/processes/upstream-process.ts", import.meta.url).pathname);
const g = await startGateway([process.env.PGURL ?? mkdtempSync(join(tmpdir(), "probe-gc-"))], (process.env.GFLAGS ?? "--trace-gc").split(" "));
const off = await createMemberKey(g.info.url, g.info.adminKey, "b", GUARDRAILS_OFF);
await registerBenchModels(g.info.url, g.info.adminKey, upstream.info.url, [FAST_MODEL, PACED_MODEL], off);
const spec = { url: `${g.info.url}/v1/chat/completions`, connections: 50, headers: { authorization: `Bearer ${off}`, "content-type": "application/json" }, body: chatBody(FAST_MODEL, false) };
try {
  await runWrk(wrk, { ...spec, seconds: 2 });
  process.stderr.write(`=== MEASURE START pid ${g.pid}\n`);
  const run = await runWrk(wrk, { ...spec, seconds: Number(process.env.SECS ?? 5) });
  process.stderr.write(`=== MEASURE END ${run.requests} requests\n`);
} finally { await g.stop(); await upstream.stop(); }
