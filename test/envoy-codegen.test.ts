/**
 * Envoy cannot be installed here: these tests use the "Envoy plays" test double (test/fakes/
 * envoy-client.ts) against a throwaway grpc-js server that implements both services trivially
 * (test/fakes/envoy-stub-services.ts), to prove the generated code (proto/gen/) and the double
 * round-trip Envoy's protocol.
 */
import test from "ava";
import { status as GrpcCode } from "@grpc/grpc-js";
import { connectEnvoy, ExtProcSession, headerValue, sendCheck } from "./fakes/envoy-client.js";
import { startStubServices } from "./fakes/envoy-stub-services.js";

test("Envoy test double: a denied Check reaches the caller with its status, headers and body", async (t) => {
  const { envoy, stop } = await startStubServices();
  t.teardown(stop);
  const outcome = await sendCheck(envoy.authorization, {
    method: "POST",
    path: "/v1/chat/completions",
    headers: { "x-request-id": "req-1", "content-type": "application/json" },
  });
  if (outcome.kind !== "denied") return t.fail(`expected a denial, got ${outcome.kind}`);
  t.is(outcome.caller.status, 401);
  t.is(headerValue(outcome.caller.headers, "x-request-id"), "req-1");
  t.is(headerValue(outcome.caller.headers, "content-type"), "application/json");
  t.deepEqual(JSON.parse(outcome.caller.body), {
    error: { type: "authentication_error", code: "invalid_api_key" },
  });
});

test("Envoy test double: an allowed Check mutates the request the upstream receives", async (t) => {
  const { envoy, stop } = await startStubServices();
  t.teardown(stop);
  const outcome = await sendCheck(envoy.authorization, {
    method: "POST",
    path: "/v1/chat/completions",
    headers: { authorization: "Bearer ev_sk_test", "x-request-id": "req-2" },
  });
  if (outcome.kind !== "allowed") return t.fail(`expected an allow, got ${outcome.kind}`);
  t.is(headerValue(outcome.upstream.headers, "x-evident-customer"), "cus_1");
  t.is(headerValue(outcome.upstream.headers, "authorization"), undefined);
  t.is(headerValue(outcome.upstream.headers, ":path"), "/v1/chat/completions");
  t.is(headerValue(outcome.responseHeadersToAdd, "x-request-id"), "req-2");
});

test("Envoy test double: an ext_proc stream round-trips headers, a redacted body, streamed chunks and trailers", async (t) => {
  const { envoy, stop } = await startStubServices();
  t.teardown(stop);
  const body = '{"prompt":"my secret"}';
  const session = new ExtProcSession(envoy.externalProcessor, {
    method: "POST",
    path: "/v1/chat/completions",
    headers: { "content-type": "application/json", "content-length": String(body.length) },
  });
  t.is((await session.requestHeaders()).kind, "continued");
  t.is((await session.requestBody(body, { endOfStream: true })).kind, "continued");
  t.is(
    (await session.responseHeaders(200, { "content-type": "text/event-stream" })).kind,
    "continued",
  );
  const chunks = await Promise.all([
    session.responseBody("data: a\n\n"),
    session.responseBody("data: b\n\n"),
  ]);
  t.deepEqual(
    chunks.map((c) => c.kind),
    ["continued", "continued"],
  );
  t.is((await session.responseTrailers({ "grpc-status": "0" })).kind, "continued");
  const end = await session.end();

  t.is(headerValue(session.upstream.headers, "x-evident-upstream"), "backend-a");
  t.true(session.routeCacheCleared);
  t.is(session.upstream.body.toString(), '{"prompt":"my [REDACTED]"}');
  t.is(
    headerValue(session.upstream.headers, "content-length"),
    String(session.upstream.body.length),
  );
  t.is(headerValue(session.downstream.headers, ":status"), "200");
  t.is(headerValue(session.downstream.headers, "x-scanned"), "1");
  t.is(session.downstream.body.toString(), "DATA: A\n\nDATA: B\n\n");
  t.is(session.responses.length, 6);
  t.is(session.localReply, undefined);
  t.deepEqual([end.code, end.endedBy], [GrpcCode.OK, "processor"]);
});

test("Envoy test double: an ext_proc immediate response becomes the caller's reply and ends processing", async (t) => {
  const { envoy, stop } = await startStubServices();
  t.teardown(stop);
  const session = new ExtProcSession(envoy.externalProcessor, {
    method: "POST",
    path: "/v1/chat/completions",
  });
  await session.requestHeaders();
  const result = await session.requestBody("please BLOCK this", { endOfStream: true });
  t.is(result.kind, "immediate");
  t.is(session.localReply?.status, 400);
  t.is(headerValue(session.localReply?.headers ?? [], "content-type"), "application/json");
  t.deepEqual(JSON.parse(session.localReply?.body.toString() ?? ""), {
    error: { code: "custom_rule_block" },
  });
  t.is((await session.responseHeaders(200, {})).kind, "passed-through");
  t.is((await session.ended).code, GrpcCode.OK);
});

test("Envoy test double: a client reset mid-stream cancels the ext_proc stream and the server sees it", async (t) => {
  const { envoy, stop, observed, reset } = await startStubServices();
  t.teardown(stop);
  const session = new ExtProcSession(envoy.externalProcessor, {
    method: "POST",
    path: "/v1/chat/completions",
  });
  await session.requestHeaders();
  await session.responseHeaders(200, { "content-type": "text/event-stream" });
  await session.responseBody("data: first\n\n");
  const end = await session.reset();
  await reset;
  t.is(observed.resets, 1);
  t.deepEqual([end.code, end.endedBy], [GrpcCode.CANCELLED, "envoy"]);
});

test("Envoy test double: a processor answering the wrong phase fails the request with 500 and a reset", async (t) => {
  const { envoy, stop, observed, reset } = await startStubServices();
  t.teardown(stop);
  const session = new ExtProcSession(envoy.externalProcessor, {
    method: "GET",
    path: "/v1/models",
    headers: { "x-test": "wrong-phase" },
  });
  const result = await session.requestHeaders({ endOfStream: true });
  t.is(result.kind, "failed");
  t.is(session.localReply?.status, 500);
  t.deepEqual((await session.ended).endedBy, "envoy");
  await reset;
  t.is(observed.resets, 1);
});

test("Envoy test double: a processor that never answers hits the message timeout; failure_mode_allow passes through", async (t) => {
  const { envoy, stop } = await startStubServices();
  t.teardown(stop);
  const request = { method: "GET", path: "/v1/models", headers: { "x-test": "never-answer" } };
  const closed = new ExtProcSession(envoy.externalProcessor, request, { messageTimeoutMs: 100 });
  const open = new ExtProcSession(envoy.externalProcessor, request, {
    messageTimeoutMs: 100,
    failureModeAllow: true,
  });
  const [failClosed, failOpen] = await Promise.all([
    closed.requestHeaders(),
    open.requestHeaders(),
  ]);
  t.deepEqual(failClosed, { kind: "failed", reason: "per-message timeout exceeded" });
  t.is(closed.localReply?.status, 500);
  t.is(failOpen.kind, "passed-through");
  t.is(open.localReply, undefined);
  t.is((await open.responseHeaders(200, {})).kind, "passed-through");
});

test("Envoy test double: a failed Check call answers 403 (status_on_error) unless failure_mode_allow", async (t) => {
  const { envoy, stop } = await startStubServices();
  stop(); // nothing listens any more: the Check call fails with UNAVAILABLE
  const unreachable = connectEnvoy(envoy.authorization.getChannel().getTarget());
  t.teardown(() => unreachable.close());
  const request = { method: "GET", path: "/v1/models", headers: { authorization: "Bearer k" } };
  const closed = await sendCheck(unreachable.authorization, request, { timeoutMs: 2000 });
  const open = await sendCheck(unreachable.authorization, request, {
    timeoutMs: 2000,
    failureModeAllow: true,
  });
  if (closed.kind !== "error" || open.kind !== "error")
    return t.fail("expected failed Check calls");
  t.is(closed.caller?.status, 403);
  t.is(open.caller, undefined);
  t.is(headerValue(open.upstream?.headers ?? [], "authorization"), "Bearer k");
});
