/**
 * Envoy cannot be installed here: these tests use the "Envoy plays" test double (test/fakes/
 * envoy-client.ts) against a throwaway grpc-js server that implements both services trivially,
 * to prove the generated code (proto/gen/) and the double round-trip Envoy's protocol.
 */
import test from "ava";
import {
  type handleBidiStreamingCall,
  type handleUnaryCall,
  Server,
  ServerCredentials,
  status as GrpcCode,
} from "@grpc/grpc-js";
import { StatusCode } from "../proto/gen/envoy/type/v3/http_status.js";
import {
  AuthorizationService,
  type CheckRequest,
  CheckResponse,
} from "../proto/gen/envoy/service/auth/v3/external_auth.js";
import {
  ExternalProcessorService,
  type ProcessingRequest,
  ProcessingResponse,
} from "../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import { connectEnvoy, ExtProcSession, headerValue, sendCheck } from "./fakes/envoy-client.js";

const raw = (key: string, value: string) => ({ header: { key, rawValue: Buffer.from(value) } });

/** Allows requests carrying a bearer key; denies the others with 401, an envelope and headers. */
const check: handleUnaryCall<CheckRequest, CheckResponse> = (call, callback) => {
  const http = call.request.attributes?.request?.http;
  const requestId = http?.headers["x-request-id"] ?? "";
  if (http?.headers["authorization"] === undefined) {
    const body = JSON.stringify({
      error: { type: "authentication_error", code: "invalid_api_key" },
    });
    return callback(
      null,
      CheckResponse.fromPartial({
        status: { code: GrpcCode.UNAUTHENTICATED },
        httpResponse: {
          $case: "deniedResponse",
          value: {
            status: { code: StatusCode.Unauthorized },
            headers: [
              { header: { key: "content-type", value: "application/json" } },
              { header: { key: "x-request-id", value: requestId } },
            ],
            body,
          },
        },
      }),
    );
  }
  callback(
    null,
    CheckResponse.fromPartial({
      status: { code: GrpcCode.OK },
      httpResponse: {
        $case: "okResponse",
        value: {
          headers: [{ header: { key: "x-evident-customer", value: "cus_1" } }],
          headersToRemove: ["authorization"],
          responseHeadersToAdd: [{ header: { key: "x-request-id", value: requestId } }],
        },
      },
    }),
  );
};

/** Misbehaves on request (x-test: wrong-phase / never-answer). Routes on headers, redacts "secret" in buffered request bodies, blocks "BLOCK", upper-cases
 * streamed response chunks; records whether Envoy reset the stream. */
function makeProcess(observed: {
  resets: number;
  onReset: () => void;
}): handleBidiStreamingCall<ProcessingRequest, ProcessingResponse> {
  return (call) => {
    call.on("cancelled", () => {
      observed.resets += 1;
      observed.onReset();
    });
    call.on("end", () => call.end());
    call.on("data", (message: ProcessingRequest) => {
      const request = message.request;
      switch (request?.$case) {
        case "requestHeaders":
        case "responseHeaders": {
          const test = request.value.headers?.headers.find((h) => h.key === "x-test")?.rawValue;
          if (test?.toString() === "never-answer") return;
          if (test?.toString() === "wrong-phase") {
            const value = { response: {} };
            return call.write(
              ProcessingResponse.fromPartial({ response: { $case: "responseHeaders", value } }),
            );
          }
          const setHeaders =
            request.$case === "requestHeaders"
              ? [raw("x-evident-upstream", "backend-a")]
              : [raw("x-scanned", "1")];
          const value = {
            response: {
              headerMutation: { setHeaders },
              clearRouteCache: request.$case === "requestHeaders",
            },
          };
          return call.write(
            ProcessingResponse.fromPartial({ response: { $case: request.$case, value } }),
          );
        }
        case "requestBody": {
          const text = request.value.body.toString("utf8");
          if (text.includes("BLOCK")) {
            const body = Buffer.from(JSON.stringify({ error: { code: "custom_rule_block" } }));
            const headers = { setHeaders: [raw("content-type", "application/json")] };
            const value = {
              status: { code: StatusCode.BadRequest },
              headers,
              body,
              details: "blocked",
            };
            return call.write(
              ProcessingResponse.fromPartial({ response: { $case: "immediateResponse", value } }),
            );
          }
          const redacted = Buffer.from(text.replaceAll("secret", "[REDACTED]"));
          const headerMutation = { setHeaders: [raw("content-length", String(redacted.length))] };
          const bodyMutation = { mutation: { $case: "body" as const, value: redacted } };
          const value = { response: { headerMutation, bodyMutation } };
          return call.write(
            ProcessingResponse.fromPartial({ response: { $case: "requestBody", value } }),
          );
        }
        case "responseBody": {
          const bodyMutation = {
            mutation: {
              $case: "body" as const,
              value: Buffer.from(request.value.body.toString().toUpperCase()),
            },
          };
          return call.write(
            ProcessingResponse.fromPartial({
              response: { $case: "responseBody", value: { response: { bodyMutation } } },
            }),
          );
        }
        case "requestTrailers":
        case "responseTrailers":
          return call.write(
            ProcessingResponse.fromPartial({ response: { $case: request.$case, value: {} } }),
          );
      }
    });
  };
}

async function startServer() {
  let onReset = () => {};
  const observed = { resets: 0, onReset: () => onReset() };
  const reset = new Promise<void>((resolve) => (onReset = resolve));
  const server = new Server();
  server.addService(AuthorizationService, { check });
  server.addService(ExternalProcessorService, { process: makeProcess(observed) });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
  const envoy = connectEnvoy(`127.0.0.1:${port}`);
  return {
    envoy,
    observed,
    reset,
    stop: () => {
      envoy.close();
      server.forceShutdown();
    },
  };
}

test("Envoy test double: a denied Check reaches the caller with its status, headers and body", async (t) => {
  const { envoy, stop } = await startServer();
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
  const { envoy, stop } = await startServer();
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
  const { envoy, stop } = await startServer();
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
  const { envoy, stop } = await startServer();
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
  const { envoy, stop, observed, reset } = await startServer();
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
  const { envoy, stop, observed, reset } = await startServer();
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
  const { envoy, stop } = await startServer();
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
  const { envoy, stop } = await startServer();
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
