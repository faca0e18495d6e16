/**
 * Interleaved A/B of the audit record path per call between another checkout and this one, in one
 * process: `npx tsx scripts/audit-record-path-ab.ts /work/wt/before [rounds] [records per round]`.
 * A record goes the way a call's record goes with AUDIT_DURABILITY=local: recordForCall, its log
 * line (JSON and a newline, as UTF-8), storableRecord as the ingester's batch makes it, and
 * chainAfter over batches of 8 (the store parameter, digests and chain hashes). A routed chat call
 * with usage and two verdicts, a 2-message body; content not kept (the default). Each tree's
 * chain output for the same records is compared first (it must be the same). Reported: CPU time
 * per record (process.cpuUsage, so other processes' load matters less than for wall time), the
 * minimum and median over rounds of each tree, and the median ratio (this tree over the other).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as ours from "../dataplane/audit/call-record.js";
import { encodeLines } from "../dataplane/audit/audit-spool-lines.js";
import { storableRecord } from "../dataplane/audit/storable-record.js";
import type { PendingAuditRecord } from "../dataplane/store/audit-repository.js";
import { chainAfter } from "../dataplane/store/audit-chain-append.js";
import { goldenCall } from "../test/support/audit-call-fixture.js";

const other = resolve(process.argv[2] ?? "/work/wt/before");
const rounds = Number(process.argv[3] ?? 9);
const perRound = Number(process.argv[4] ?? 20_000);
const load = async <T>(file: string) =>
  (await import(pathToFileURL(`${other}/dataplane/${file}`).href)) as T;
const theirs = {
  record: (await load<typeof ours>("audit/call-record.ts")).recordForCall,
  storable: (await load<{ storableRecord: typeof storableRecord }>("audit/storable-record.ts"))
    .storableRecord,
  chain: (await load<{ chainAfter: typeof chainAfter }>("store/audit-chain-append.ts")).chainAfter,
  // The log line as appendNow wrote it before encodeLines.
  line: (records: readonly PendingAuditRecord[]) => {
    let text = "";
    for (const r of records) text += `${JSON.stringify(r)}\n`;
    return Buffer.from(text, "utf8");
  },
};
const mine = {
  record: ours.recordForCall,
  storable: storableRecord,
  chain: chainAfter,
  line: encodeLines,
};
type Path = typeof mine;

const call = goldenCall(true);
Object.assign(call, {
  originalBody: {
    model: "gpt-é",
    messages: [
      { role: "system", content: "You are a helpful assistant for the support team." },
      { role: "user", content: "Summarise the last three tickets about invoices. ".repeat(4) },
    ],
    temperature: 0.2,
    max_tokens: 256,
  },
});
const now = call.startedAt + 850;
const BATCH = 8;

/** Records through one tree's path; returns the last batch's chain output. */
function run(path: Path, n: number): string {
  let head = { seq: 0, hash: "0".repeat(64) };
  let json = "";
  let batch: PendingAuditRecord[] = [];
  for (let i = 0; i < n; i++) {
    const record = path.record(call, now, "none");
    if (path.line([record]).length === 0) throw new Error("empty log line");
    batch.push(path.storable(record));
    if (batch.length === BATCH) {
      const next = path.chain(head, batch);
      head = next.head;
      json = next.json.toString("utf8");
      batch = [];
    }
  }
  return json;
}

const sameIds = (path: Path): Path => ({
  ...path,
  record: (c, t, m) => {
    const r = path.record(c, t, m);
    return { ...r, fields: { ...r.fields, id: "aud_fixed" } };
  },
});
if (run(sameIds(mine), BATCH) !== run(sameIds(theirs), BATCH)) {
  throw new Error("the two trees chain the same records differently");
}

function cpuPerRecord(path: Path): number {
  const start = process.cpuUsage();
  run(path, perRound);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / perRound;
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] as number;
const a: number[] = [];
const b: number[] = [];
const ratios: number[] = [];
cpuPerRecord(mine);
cpuPerRecord(theirs);
for (let i = 0; i < rounds; i++) {
  let x: number;
  let y: number;
  if (i % 2 === 0) {
    x = cpuPerRecord(mine);
    y = cpuPerRecord(theirs);
  } else {
    y = cpuPerRecord(theirs);
    x = cpuPerRecord(mine);
  }
  a.push(x);
  b.push(y);
  ratios.push(x / y);
}
const fmt = (v: number) => v.toFixed(2);
console.log(`records per round ${perRound}, rounds ${rounds}, chain batches of ${BATCH}`);
console.log(`this tree   CPU us/record min ${fmt(Math.min(...a))} median ${fmt(median(a))}`);
console.log(`${other}  CPU us/record min ${fmt(Math.min(...b))} median ${fmt(median(b))}`);
console.log(
  `this/other median ${median(ratios).toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(" ")})`,
);
