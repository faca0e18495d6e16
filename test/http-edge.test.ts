import net from "node:net";
import test from "ava";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";

let app: RunningApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.close();
});

type Answer = { status: number; headers: Headers; json: Record<string, unknown> };

function assertEnvelope(
  t: import("ava").ExecutionContext,
  res: Answer,
  status: number,
  code: string,
) {
  t.is(res.status, status);
  t.is(errorOf(res.json)?.code, code);
  t.is(typeof errorOf(res.json)?.type, "string");
  t.regex(res.headers.get("x-request-id") ?? "", /^req_/);
}

function rawRequest(url: string, text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(url).port), "127.0.0.1");
    let answer = "";
    socket.on("data", (d) => (answer += d.toString("latin1")));
    socket.on("error", () => resolve(answer));
    socket.on("close", () => resolve(answer));
    socket.write(text);
  });
}

test("a path segment over 100 characters is 414 in the envelope, with and without a key", async (t) => {
  const path = `/api/v1/models/${"a".repeat(150)}`;
  assertEnvelope(t, await call(app.url, "GET", path, app.adminKey), 414, "uri_too_long");
  assertEnvelope(t, await call(app.url, "GET", path, undefined), 414, "uri_too_long");
});

test("a URL with broken percent-encoding is 400 in the envelope", async (t) => {
  const res = await call(app.url, "GET", "/api/v1/models/%E0%A4%A", app.adminKey);
  assertEnvelope(t, res, 400, "invalid_request");
});

test("oversized request headers are 431 in the envelope with a request id (Node's clientError)", async (t) => {
  const answer = await rawRequest(
    app.url,
    `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
  );
  t.regex(answer, /^HTTP\/1\.1 431 /);
  t.regex(answer, /X-Request-ID: req_/);
  t.regex(answer, /"code":"request_headers_too_large"/);
  const garbage = await rawRequest(app.url, "NOT A REQUEST\r\n\r\n");
  t.regex(garbage, /^HTTP\/1\.1 400 /);
  t.regex(garbage, /"error":\{/);
});

test("413, 415, 404 and 405 answer in the envelope with a request id", async (t) => {
  const big = await call(app.url, "POST", "/api/v1/customers", app.adminKey, {
    name: "x".repeat(app.app.ctx.config.MAX_BODY_BYTES),
  });
  assertEnvelope(t, big, 413, "request_too_large");
  const text = await call(app.url, "POST", "/api/v1/customers", app.adminKey, "x", {
    "content-type": "text/plain",
  });
  assertEnvelope(t, text, 415, "unsupported_media_type");
  assertEnvelope(t, await call(app.url, "GET", "/nope", app.adminKey), 404, "route_not_found");
  assertEnvelope(
    t,
    await call(app.url, "PATCH", "/api/v1/customers", app.adminKey, {}),
    405,
    "method_not_allowed",
  );
});

test("a DELETE or GET with a JSON content type and an empty body is accepted", async (t) => {
  const json = { "content-type": "application/json" };
  const list = await call(app.url, "GET", "/api/v1/customers", app.adminKey, undefined, json);
  t.is(list.status, 200);
  const created = await call(app.url, "POST", "/api/v1/keys", app.adminKey, { name: "temp" });
  t.is(created.status, 201);
  const id = String(created.json.id);
  const res = await fetch(`${app.url}/api/v1/keys/${id}`, {
    method: "DELETE",
    headers: { authorization: `Bearer ${app.adminKey}`, ...json },
  });
  t.true(res.status < 300, `DELETE answered ${res.status}`);
});

const BAD_STRINGS = ["x\u0000y", "a\ud800b", "\udc00"];
const MANAGEMENT_BODIES: [string, string, Record<string, unknown>][] = [
  ["POST", "/api/v1/customers", { name: "$", tier: "pro" }],
  ["POST", "/api/v1/guardrails/rules", { name: "r", type: "keyword", keywords: ["$"] }],
  ["POST", "/api/v1/audit/legal-hold", { reason: "$", from: "2026-01-01T00:00:00Z" }],
  ["POST", "/api/v1/gateway/backends", { name: "b", url: "http://x", models: ["$"] }],
  ["POST", "/api/v1/routes", { name: "r", match: { headers: { "x-team": "$" } } }],
  ["PATCH", "/api/v1/guardrails/policy", { model_checks: [{ name: "$" }] }],
  ["POST", "/api/v1/models", { name: "$", version: "1" }],
];

/** Puts `bad` wherever the template has "$" (values and keys). */
function plant(value: unknown, bad: string): unknown {
  if (value === "$") return bad;
  if (Array.isArray(value)) return value.map((v) => plant(v, bad));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k === "$" ? bad : k, plant(v, bad)]),
    );
  }
  return value;
}

test("a NUL or a lone surrogate in any management body field is a 422 naming the field", async (t) => {
  for (const bad of BAD_STRINGS) {
    for (const [method, path, template] of MANAGEMENT_BODIES) {
      const res = await call(app.url, method, path, app.adminKey, plant(template, bad));
      assertEnvelope(t, res, 422, "validation_failed");
      const detail = (res.json.error as { detail: { loc: (string | number)[] }[] }).detail;
      t.is(detail[0]?.loc[0], "body", `${method} ${path}`);
      t.true((detail[0]?.loc.length ?? 0) > 1, `${method} ${path} names the field`);
    }
  }
});

test("a NUL or a lone surrogate in a query or path parameter is a 422, never a 500", async (t) => {
  const nul = await call(app.url, "GET", "/api/v1/audit/records?request_id=%00", app.adminKey);
  assertEnvelope(t, nul, 422, "validation_failed");
  t.deepEqual((nul.json.error as { detail: { loc: unknown[] }[] }).detail[0]?.loc, [
    "query",
    "request_id",
  ]);
  for (const path of [
    "/api/v1/models/%00",
    "/api/v1/guardrails/rules/a%00b",
    "/api/v1/audit/records?model=a%00",
    "/api/v1/routes?customer_id=%00",
  ]) {
    const res = await call(app.url, "GET", path, app.adminKey);
    t.true(
      res.status === 422 || res.status === 404 || res.status === 400,
      `${path}: ${res.status}`,
    );
    t.truthy(errorOf(res.json)?.code);
  }
});

test("a chat request nested 3,500 levels deep is a 422 and still leaves an audit record", async (t) => {
  let deep: unknown = "x";
  for (let i = 0; i < 3_500; i++) deep = { a: deep };
  const body = { model: "gpt-test", messages: [{ role: "user", content: "hi" }], extra: deep };
  const res = await call(app.url, "POST", "/v1/chat/completions", app.adminKey, body);
  assertEnvelope(t, res, 422, "validation_failed");
  const requestId = res.headers.get("x-request-id") ?? "";
  const malformed = await call(app.url, "POST", "/v1/chat/completions", app.adminKey, '{"model":');
  assertEnvelope(t, malformed, 400, "invalid_json");
  const nul = await call(app.url, "POST", "/v1/embeddings", app.adminKey, {
    model: "m",
    input: "a\u0000b",
  });
  assertEnvelope(t, nul, 422, "validation_failed");
  for (const id of [
    requestId,
    malformed.headers.get("x-request-id") ?? "",
    nul.headers.get("x-request-id") ?? "",
  ]) {
    const found = await within(30_000, async () => {
      const records = await call(
        app.url,
        "GET",
        `/api/v1/audit/records?request_id=${id}`,
        app.adminKey,
      );
      return ((records.json.data as unknown[] | undefined) ?? []).length === 1;
    });
    t.true(found, `an audit record for ${id}`);
  }
  const records = await call(
    app.url,
    "GET",
    `/api/v1/audit/records?request_id=${requestId}`,
    app.adminKey,
  );
  const record = (records.json.data as Record<string, unknown>[])[0] ?? {};
  t.is(record.outcome, "refused");
  t.is(record.subject, "gpt-test", "the requested model, when it was a clean string");
  t.is(record.error_code, "validation_failed");
});

test("dates the store cannot keep exactly are refused with 422, never shifted", async (t) => {
  const cases = [
    ["0001-01-01T00:00:00Z", "2026-01-01T00:00:00Z"],
    ["0099-12-31T23:59:59Z", "2026-01-01T00:00:00Z"],
    ["0100-01-01T00:30:00+01:00", "2026-01-01T00:00:00Z"],
    ["2026-01-01T00:00:00.123456Z", "2026-02-01T00:00:00Z"],
  ];
  for (const [from, to] of cases) {
    const hold = await call(app.url, "POST", "/api/v1/audit/legal-hold", app.adminKey, {
      from,
      to,
      reason: "litigation",
    });
    assertEnvelope(t, hold, 422, "validation_failed");
    const exp = await call(app.url, "POST", "/api/v1/compliance/exports", app.adminKey, {
      kind: "soc2",
      from,
      to,
    });
    assertEnvelope(t, exp, 422, "validation_failed");
    const records = await call(
      app.url,
      "GET",
      `/api/v1/audit/records?from=${encodeURIComponent(from ?? "")}`,
      app.adminKey,
    );
    assertEnvelope(t, records, 422, "validation_failed");
  }
  // The earliest accepted instant is kept exactly.
  const kept = await call(app.url, "POST", "/api/v1/audit/legal-hold", app.adminKey, {
    from: "0100-01-01T00:00:00Z",
    to: "9999-12-31T23:59:59.999Z",
    reason: "litigation",
  });
  t.is(kept.status, 201);
  const list = await call(app.url, "GET", "/api/v1/audit/legal-hold", app.adminKey);
  const holds = list.json.data as { id: string; from: string; to: string }[];
  const stored = holds.find((h) => h.id === kept.json.id);
  t.is(stored?.from, "0100-01-01T00:00:00.000Z");
  t.is(stored?.to, "9999-12-31T23:59:59.999Z");
});
