import test from "ava";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";

let app: RunningApp;
test.before(async () => {
  app = await startTestApp({ env: { MAX_BODY_BYTES: "4096" } });
});
test.after.always(async () => {
  await app?.close();
});

function assertEnvelope(
  t: import("ava").ExecutionContext,
  res: { status: number; headers: Headers; json: Record<string, unknown> },
  status: number,
  code: string,
) {
  t.is(res.status, status);
  t.is(errorOf(res.json)?.code, code);
  t.is(typeof errorOf(res.json)?.message, "string");
  t.is(typeof errorOf(res.json)?.type, "string");
  t.truthy(res.headers.get("x-request-id"));
  t.false(JSON.stringify(res.json).includes("    at "), "no stack trace");
}

test("no key, a malformed key, a foreign key and an unknown key all get 401 in the envelope", async (t) => {
  for (const key of [
    undefined,
    "garbage",
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "ev_sk_0123456789abcdefghijklmnopqrstuvwxyzAB",
  ]) {
    const res = await call(app.url, "GET", "/api/v1/health", key);
    assertEnvelope(t, res, 401, "invalid_api_key");
    t.is(errorOf(res.json).type, "authentication_error");
  }
  const basic = await call(app.url, "GET", "/api/v1/health", undefined, undefined, {
    authorization: `Basic ${Buffer.from("a:b").toString("base64")}`,
  });
  assertEnvelope(t, basic, 401, "invalid_api_key");
});

test("probes need no key", async (t) => {
  t.is((await call(app.url, "GET", "/healthz", undefined)).status, 200);
  const ready = await call(app.url, "GET", "/readyz", undefined);
  t.is(ready.status, 200);
  t.deepEqual(ready.json.checks, { store: true, migrated: true, routing: true, audit: true });
});

test("an unknown route is 404 and a wrong method is 405 with Allow", async (t) => {
  assertEnvelope(
    t,
    await call(app.url, "GET", "/api/v1/nope", app.adminKey),
    404,
    "route_not_found",
  );
  const wrong = await call(app.url, "PUT", "/api/v1/customers", app.adminKey, {});
  assertEnvelope(t, wrong, 405, "method_not_allowed");
  t.is(wrong.headers.get("allow"), "POST, GET");
  // Without a key, an unknown path does not reveal whether it exists.
  assertEnvelope(t, await call(app.url, "GET", "/api/v1/nope", undefined), 401, "invalid_api_key");
});

test("malformed JSON, an empty body, and a non-JSON content type are clear 4xx errors", async (t) => {
  const bad = await call(app.url, "POST", "/api/v1/customers", app.adminKey, '{"name": "x",');
  assertEnvelope(t, bad, 400, "invalid_json");
  const empty = await call(app.url, "POST", "/api/v1/customers", app.adminKey, "");
  t.true([400, 422].includes(empty.status));
  const text = await call(app.url, "POST", "/api/v1/customers", app.adminKey, "name=x", {
    "content-type": "text/plain",
  });
  assertEnvelope(t, text, 415, "unsupported_media_type");
  const proto = await call(
    app.url,
    "POST",
    "/api/v1/customers",
    app.adminKey,
    '{"name":"x","tier":"pro","__proto__":{"admin":true}}',
  );
  t.true(proto.status === 400 || proto.status === 422, "prototype pollution is refused");
});

test("a body over the limit is 413", async (t) => {
  const huge = { name: "x".repeat(10_000), tier: "pro" };
  assertEnvelope(
    t,
    await call(app.url, "POST", "/api/v1/customers", app.adminKey, huge),
    413,
    "request_too_large",
  );
});

test("validation failures are 422 with a detail array naming each field", async (t) => {
  const res = await call(app.url, "POST", "/api/v1/customers", app.adminKey, {
    name: 42,
    tier: "platinum",
    surprise: true,
  });
  assertEnvelope(t, res, 422, "validation_failed");
  const detail = (res.json.error as { detail: { loc: string[]; msg: string; type: string }[] })
    .detail;
  const locs = detail.map((d) => d.loc.join("."));
  t.true(locs.includes("body.name"));
  t.true(locs.includes("body.tier"));
  t.true(
    detail.some((d) => d.type === "unrecognized_keys"),
    "unknown fields are named",
  );
  for (const d of detail) t.is(typeof d.msg, "string");
});

test("bad query parameters and path ids are 422, not 500", async (t) => {
  assertEnvelope(
    t,
    await call(app.url, "GET", "/api/v1/customers?limit=-5", app.adminKey),
    422,
    "validation_failed",
  );
  assertEnvelope(
    t,
    await call(app.url, "GET", "/api/v1/customers?limit=abc", app.adminKey),
    422,
    "validation_failed",
  );
  const path = await call(
    app.url,
    "GET",
    `/api/v1/keys/${encodeURIComponent("a' OR '1'='1")}`,
    app.adminKey,
  );
  assertEnvelope(t, path, 422, "validation_failed");
});

test("X-Request-ID is propagated when sane and replaced when not, on errors too", async (t) => {
  const mine = await call(app.url, "GET", "/api/v1/nope", undefined, undefined, {
    "x-request-id": "trace-123.abc",
  });
  t.is(mine.headers.get("x-request-id"), "trace-123.abc");
  const hostile = await call(app.url, "GET", "/healthz", undefined, undefined, {
    "x-request-id": "<script>alert(1)</script>",
  });
  t.regex(hostile.headers.get("x-request-id") ?? "", /^req_[0-9a-f]{32}$/);
  const long = await call(app.url, "GET", "/healthz", undefined, undefined, {
    "x-request-id": "a".repeat(500),
  });
  t.regex(long.headers.get("x-request-id") ?? "", /^req_/);
  const generated = await call(app.url, "GET", "/healthz", undefined);
  t.regex(generated.headers.get("x-request-id") ?? "", /^req_/);
});

test("the OpenAPI document lists every route with the bearer scheme", async (t) => {
  const res = await call(app.url, "GET", "/openapi.json", app.adminKey);
  t.is(res.status, 200);
  const doc = res.json as {
    info: { version: string };
    paths: Record<string, Record<string, { security: unknown[] }>>;
  };
  t.is(doc.info.version, "0.1.0");
  for (const path of [
    "/api/v1/health",
    "/api/v1/keys",
    "/api/v1/keys/{key_id}",
    "/api/v1/customers/{customer_id}",
    "/api/v1/system/metrics",
  ]) {
    t.truthy(doc.paths[path], path);
  }
  t.deepEqual(doc.paths["/api/v1/keys"]?.post?.security, [{ bearerAuth: [] }]);
  t.deepEqual(doc.paths["/healthz"]?.get?.security, []);
});

test("metrics are Prometheus text with request counts by route and status", async (t) => {
  await call(app.url, "GET", "/api/v1/health", app.adminKey);
  const res = await fetch(`${app.url}/api/v1/system/metrics`, {
    headers: { authorization: `Bearer ${app.adminKey}` },
  });
  t.is(res.status, 200);
  t.regex(res.headers.get("content-type") ?? "", /text\/plain/);
  const text = await res.text();
  t.regex(
    text,
    /evident_http_requests_total\{route="\/api\/v1\/health",method="GET",status="200"\} \d+/,
  );
  t.regex(text, /evident_http_request_duration_seconds_bucket/);
});
