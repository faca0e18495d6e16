import test from "ava";
import type { PendingAuditRecord } from "../store/audit-repository.js";
import { canonicalJson, sha256Hex } from "./audit-record.js";
import {
  escapeForStore,
  MAX_STORED_DEPTH,
  storableRecord,
  unescapeStoredString,
} from "./storable-record.js";

const NUL = String.fromCharCode(0);

function record(
  subject: string,
  content: Record<string, unknown> | null = null,
): PendingAuditRecord {
  return {
    fields: {
      id: "aud_1",
      customer_id: "c_1",
      occurred_at: "2026-01-01T00:00:00.000Z",
      kind: "inference",
      request_id: "r",
      key_id: "k",
      action: "chat.completions",
      subject,
      model: null,
      backend: null,
      route: null,
      classification: null,
      verdicts: [],
      usage: null,
      cost_usd: null,
      latency_ms: 1,
      status: 404,
      error_code: "model_not_found",
      outcome: "failed",
      request_sha256: null,
      response_sha256: null,
      content_sha256: content === null ? null : sha256Hex(canonicalJson(content)),
      details: null,
    },
    content,
  };
}

test("escaping is reversible for lone surrogates, NUL and backslashes", (t) => {
  for (const s of ["\ud800", `x${NUL}y`, "a\\u0000b\ud800\\", "\udc00\ud83d\ude00", "plain"]) {
    t.is(unescapeStoredString(escapeForStore(s)), s);
  }
  t.is(escapeForStore("\ud83d\ude00"), "\ud83d\ude00", "a valid pair is kept as it is");
});

test("a clean record is stored untouched; a dirty one is escaped and says where", (t) => {
  const clean = record("gpt");
  t.is(storableRecord(clean), clean);
  const dirty = storableRecord(
    record(`x${NUL}y`, { request: { model: "\ud800", [`k${NUL}`]: 1 } }),
  );
  t.is(dirty.fields.subject, "x\\u0000y");
  t.deepEqual(dirty.fields.escaped, ["/subject", "/content/request/model"]);
  t.deepEqual(dirty.fields.escaped_keys, ["/content/request/k\\u0000"]);
  t.is(dirty.fields.content_sha256, sha256Hex(canonicalJson(dirty.content)));
  t.notRegex(JSON.stringify(dirty), /(?<!\\)\\u(0000|d[89a-f])/i, "nothing unstorable is left");
  t.is(unescapeStoredString(dirty.fields.subject ?? ""), `x${NUL}y`);
  t.is(storableRecord(dirty), dirty, "escaping twice changes nothing");
});

test("nesting deeper than the store's limit is kept as JSON text and listed", (t) => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 5000; i++) deep = { a: deep };
  const stored = storableRecord(record("m", { request: deep as Record<string, unknown> }));
  t.is(stored.fields.folded?.length, 1);
  const pointer = stored.fields.folded?.[0] ?? "";
  t.is(pointer.split("/").length - 1, MAX_STORED_DEPTH);
  let node: unknown = stored.content;
  for (const token of pointer.split("/").slice(2)) node = (node as Record<string, unknown>)[token];
  t.is(typeof node, "string");
  t.true((node as string).endsWith('"leaf"' + "}".repeat(5000 - MAX_STORED_DEPTH + 2)));
});
