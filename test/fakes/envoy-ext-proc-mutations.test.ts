/**
 * The Envoy test double must apply a processor's answers the way Envoy does, or adapter tests
 * would pass against a fake and fail behind a real Envoy. These pin the rules the adapters rely on.
 */
import test from "ava";
import {
  CommonResponse,
  CommonResponse_ResponseStatus,
  HeaderMutation,
  ImmediateResponse,
} from "../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import {
  applyExtProcHeaderMutation,
  headerValue,
  headerValues,
  type HeaderList,
} from "./envoy-headers.js";
import {
  applyBodyResponse,
  applyHeadersResponse,
  type HttpMessageState,
  localReplyFrom,
} from "./envoy-ext-proc-mutations.js";

const raw = (key: string, value: string, append?: boolean) => ({
  header: { key, rawValue: Buffer.from(value) },
  ...(append === undefined ? {} : { append }),
});
const state = (headers: HeaderList): HttpMessageState => ({
  headers,
  body: Buffer.alloc(0),
  trailers: [],
});

test("set_headers overwrites by default and appends only with append: true", (t) => {
  const headers: HeaderList = [
    ["x-a", "1"],
    ["x-a", "2"],
    ["x-b", "1"],
  ];
  const mutation = HeaderMutation.fromPartial({
    setHeaders: [raw("X-A", "new"), raw("x-b", "2", true)],
  });
  const result = applyExtProcHeaderMutation(headers, mutation, "raw_value");
  if (!result.ok) return t.fail(result.reason);
  t.deepEqual(headerValues(result.headers, "x-a"), ["new"]);
  t.deepEqual(headerValues(result.headers, "x-b"), ["1", "2"]);
});

test("current Envoy reads raw_value only: a mutation that sets only `value` writes an empty header", (t) => {
  const mutation = HeaderMutation.fromPartial({
    setHeaders: [{ header: { key: "x-a", value: "text" } }],
  });
  const rawResult = applyExtProcHeaderMutation([], mutation, "raw_value");
  const valueResult = applyExtProcHeaderMutation([], mutation, "value");
  if (!rawResult.ok || !valueResult.ok) return t.fail("mutation failed");
  t.is(headerValue(rawResult.headers, "x-a"), "");
  t.is(headerValue(valueResult.headers, "x-a"), "text");
});

test("setting both value and raw_value fails the request", (t) => {
  const mutation = HeaderMutation.fromPartial({
    setHeaders: [{ header: { key: "x-a", value: "v", rawValue: Buffer.from("v") } }],
  });
  t.false(applyExtProcHeaderMutation([], mutation, "raw_value").ok);
});

test("routing headers, x-envoy-* and pseudo-header removals are refused and reported, the rest applies", (t) => {
  const headers: HeaderList = [
    [":authority", "a"],
    [":path", "/p"],
    ["host", "a"],
    ["x-keep", "1"],
    ["authorization", "k"],
  ];
  const mutation = HeaderMutation.fromPartial({
    setHeaders: [raw(":authority", "evil"), raw("x-envoy-upstream", "b"), raw(":path", "/q")],
    removeHeaders: [":path", "host", "authorization"],
  });
  const result = applyExtProcHeaderMutation(headers, mutation, "raw_value");
  if (!result.ok) return t.fail(result.reason);
  t.deepEqual(result.rejected.sort(), [":authority", ":path", "host", "x-envoy-upstream"]);
  t.is(headerValue(result.headers, ":authority"), "a");
  t.is(headerValue(result.headers, ":path"), "/q");
  t.is(headerValue(result.headers, "authorization"), undefined);
  t.is(headerValue(result.headers, "x-keep"), "1");
});

test("a buffered body mutation must agree with content-length, else Envoy fails the request", (t) => {
  const redacted = Buffer.from("[REDACTED]");
  const bodyMutation = { mutation: { $case: "body" as const, value: redacted } };
  const stale = CommonResponse.fromPartial({ bodyMutation });
  t.false(
    applyBodyResponse(
      state([["content-length", "6"]]),
      stale,
      Buffer.from("secret"),
      "BUFFERED",
      "raw_value",
    ).ok,
  );

  const fixed = CommonResponse.fromPartial({
    bodyMutation,
    headerMutation: { removeHeaders: ["content-length"] },
  });
  const target = state([["content-length", "6"]]);
  t.true(applyBodyResponse(target, fixed, Buffer.from("secret"), "BUFFERED", "raw_value").ok);
  t.is(target.body.toString(), "[REDACTED]");
});

test("in streamed mode a body response replaces only its chunk and cannot change headers", (t) => {
  const target = state([["content-type", "text/event-stream"]]);
  const first = CommonResponse.fromPartial({
    headerMutation: { setHeaders: [raw("x-late", "1")] },
  });
  const second = CommonResponse.fromPartial({
    bodyMutation: { mutation: { $case: "clearBody", value: true } },
  });
  applyBodyResponse(target, first, Buffer.from("a"), "STREAMED", "raw_value");
  applyBodyResponse(target, second, Buffer.from("b"), "STREAMED", "raw_value");
  applyBodyResponse(target, undefined, Buffer.from("c"), "STREAMED", "raw_value");
  t.is(target.body.toString(), "ac");
  t.is(headerValue(target.headers, "x-late"), undefined);
});

test("a headers response changes the body only with CONTINUE_AND_REPLACE, which drops content-length", (t) => {
  const bodyMutation = { mutation: { $case: "body" as const, value: Buffer.from("new") } };
  const plain = state([["content-length", "3"]]);
  const kept = applyHeadersResponse(
    plain,
    CommonResponse.fromPartial({ bodyMutation }),
    "raw_value",
  );
  t.is(plain.body.length, 0);
  t.true(kept.ok && !kept.replaced);

  const replaced = state([["content-length", "3"]]);
  const status = CommonResponse_ResponseStatus.CONTINUE_AND_REPLACE;
  const result = applyHeadersResponse(
    replaced,
    CommonResponse.fromPartial({ status, bodyMutation }),
    "raw_value",
  );
  t.true(result.ok && result.replaced);
  t.is(replaced.body.toString(), "new");
  t.is(headerValue(replaced.headers, "content-length"), undefined);
});

test("an immediate response becomes the caller's reply; a missing status means 200", (t) => {
  const reply = localReplyFrom(
    ImmediateResponse.fromPartial({
      status: { code: 429 },
      headers: { setHeaders: [raw("retry-after", "3")] },
      body: Buffer.from("{}"),
      details: "rate limited",
    }),
    "raw_value",
  );
  t.deepEqual(
    [reply.status, headerValue(reply.headers, "retry-after"), reply.body.toString()],
    [429, "3", "{}"],
  );
  t.is(localReplyFrom(ImmediateResponse.fromPartial({}), "raw_value").status, 200);
});
