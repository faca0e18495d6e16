/**
 * Trivial implementations of Envoy's Authorization and ExternalProcessor services, for the tests
 * of the generated code and of the "Envoy plays" test double (test/envoy-codegen.test.ts). They are
 * not Evident's adapters: just enough behaviour to exercise every kind of answer.
 */
import {
  type handleBidiStreamingCall,
  type handleUnaryCall,
  Server,
  ServerCredentials,
  status as GrpcCode,
} from "@grpc/grpc-js";
import { StatusCode } from "../../proto/gen/envoy/type/v3/http_status.js";
import {
  AuthorizationService,
  type CheckRequest,
  CheckResponse,
} from "../../proto/gen/envoy/service/auth/v3/external_auth.js";
import {
  ExternalProcessorService,
  type ProcessingRequest,
  ProcessingResponse,
} from "../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import { connectEnvoy } from "./envoy-client.js";

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

/**
 * Sets a routing header, redacts "secret" in buffered request bodies, blocks bodies containing
 * "BLOCK", upper-cases streamed response chunks, and misbehaves on request (header x-test:
 * wrong-phase or never-answer); counts the streams Envoy reset.
 */
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

/** Starts both services on 127.0.0.1:0 and connects the Envoy test double to them. */
export async function startStubServices() {
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
