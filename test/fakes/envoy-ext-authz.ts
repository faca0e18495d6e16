/**
 * Test double for Envoy's ext_authz HTTP filter (gRPC mode): builds the CheckRequest Envoy sends
 * for an HTTP request, calls Authorization/Check, and works out what Envoy does with the answer:
 * what the upstream receives on allow, what the caller receives on deny or on a failed call.
 */
import { Metadata, type ServiceError } from "@grpc/grpc-js";
import { randomUUID } from "node:crypto";
import type { Address } from "../../proto/gen/envoy/config/core/v3/address.js";
import {
  type AuthorizationClient,
  CheckRequest,
  type CheckResponse,
  type DeepPartial,
} from "../../proto/gen/envoy/service/auth/v3/external_auth.js";
import {
  applyExtAuthzHeaderOptions,
  type HeaderInput,
  type HeaderList,
  headerValue,
  removeExtAuthzHeaders,
  toEnvoyHeaderMap,
  toHeaderList,
} from "./envoy-headers.js";

/** An HTTP request as it reaches Envoy from a caller. */
export interface HttpRequestDescription {
  method: string;
  /** Path with the query string, e.g. "/v1/chat/completions?x=1". */
  path: string;
  headers?: HeaderInput;
  body?: string | Buffer;
  /** Default "gateway.local". */
  authority?: string;
  /** Default "http". */
  scheme?: "http" | "https";
  /** Default "HTTP/1.1". */
  protocol?: string;
}

/** The headers Envoy holds for a request: pseudo-headers first, then the caller's headers plus an
 * x-request-id (Envoy's connection manager generates one when the caller sent none). */
export function envoyRequestHeaders(request: HttpRequestDescription): HeaderList {
  const given = toHeaderList(request.headers).filter(([name]) => !name.startsWith(":"));
  const pseudo: HeaderList = [
    [":authority", request.authority ?? "gateway.local"],
    [":path", request.path],
    [":method", request.method.toUpperCase()],
    [":scheme", request.scheme ?? "http"],
  ];
  const requestId: HeaderList =
    headerValue(given, "x-request-id") === undefined ? [["x-request-id", randomUUID()]] : [];
  return [...pseudo, ...given, ...requestId];
}

export interface CheckRequestOptions {
  /** ext_authz `with_request_body`: include the body (as `body`, or `raw_body` with pack_as_bytes). */
  withRequestBody?: boolean;
  packAsBytes?: boolean;
  /** ext_authz `encode_raw_headers`: send header_map with raw values instead of the headers map. */
  encodeRawHeaders?: boolean;
  /** Route/virtual-host `context_extensions`. */
  contextExtensions?: Record<string, string>;
  /** Fixed request time; default now. */
  time?: Date;
}

/** The CheckRequest Envoy builds for `headers` (as returned by envoyRequestHeaders). */
export function buildCheckRequest(
  request: HttpRequestDescription,
  headers: HeaderList,
  options: CheckRequestOptions = {},
): CheckRequest {
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const merged: Record<string, string> = {};
  for (const [name] of headers) merged[name] ??= headerValue(headers, name) ?? "";
  const withBody = options.withRequestBody === true && body !== undefined;
  return CheckRequest.fromPartial({
    attributes: {
      source: { address: socketAddress("127.0.0.1", 50000) },
      destination: { address: socketAddress("127.0.0.1", 8080) },
      contextExtensions: options.contextExtensions ?? {},
      request: {
        time: options.time ?? new Date(),
        http: {
          id: headerValue(headers, "x-request-id") ?? "",
          method: headerValue(headers, ":method") ?? request.method,
          path: request.path,
          host: headerValue(headers, ":authority") ?? "",
          scheme: request.scheme ?? "http",
          protocol: request.protocol ?? "HTTP/1.1",
          size: body?.length ?? -1,
          ...(options.encodeRawHeaders === true
            ? { headerMap: toEnvoyHeaderMap(headers, "raw_value") }
            : { headers: merged }),
          ...(withBody && options.packAsBytes === true ? { rawBody: body } : {}),
          ...(withBody && options.packAsBytes !== true ? { body: body.toString("utf8") } : {}),
        },
      },
    },
  });
}

function socketAddress(address: string, port: number): DeepPartial<Address> {
  return {
    address: {
      $case: "socketAddress",
      value: { address, portSpecifier: { $case: "portValue", value: port } },
    },
  };
}

/** What the caller gets back from Envoy without reaching the upstream. */
export interface CallerResponse {
  status: number;
  headers: HeaderList;
  body: string;
}

export type CheckOutcome =
  | {
      kind: "allowed";
      response: CheckResponse;
      /** The request as the upstream receives it, after the OkHttpResponse mutations. */
      upstream: { path: string; headers: HeaderList };
      /** OkHttpResponse.response_headers_to_add: added to the response the caller gets. */
      responseHeadersToAdd: HeaderList;
    }
  | { kind: "denied"; response: CheckResponse; caller: CallerResponse }
  | {
      /** The Check call itself failed (unavailable, deadline...): Envoy answers 403 (status_on_error)
       * unless failure_mode_allow is set, in which case the request goes on unchanged. */
      kind: "error";
      error: ServiceError;
      caller?: CallerResponse;
      upstream?: { path: string; headers: HeaderList };
    };

export interface SendCheckOptions extends CheckRequestOptions {
  /** Envoy's ext_authz `timeout` (default 200 ms in Envoy; here 5000 ms unless set). */
  timeoutMs?: number;
  failureModeAllow?: boolean;
  /** ext_authz `status_on_error`, default 403. */
  statusOnError?: number;
  metadata?: Metadata;
}

function callCheck(
  client: AuthorizationClient,
  request: CheckRequest,
  metadata: Metadata,
  timeoutMs: number,
): Promise<{ response: CheckResponse } | { error: ServiceError }> {
  return new Promise((resolve) => {
    client.check(request, metadata, { deadline: Date.now() + timeoutMs }, (error, response) => {
      resolve(error === null ? { response } : { error });
    });
  });
}

/** Sends one HTTP request through the fake ext_authz filter. */
export async function sendCheck(
  client: AuthorizationClient,
  request: HttpRequestDescription,
  options: SendCheckOptions = {},
): Promise<CheckOutcome> {
  const headers = envoyRequestHeaders(request);
  const checkRequest = buildCheckRequest(request, headers, options);
  const result = await callCheck(
    client,
    checkRequest,
    options.metadata ?? new Metadata(),
    options.timeoutMs ?? 5000,
  );
  if ("error" in result) {
    if (options.failureModeAllow === true) {
      return { kind: "error", error: result.error, upstream: { path: request.path, headers } };
    }
    const caller = { status: options.statusOnError ?? 403, headers: [], body: "" };
    return { kind: "error", error: result.error, caller };
  }
  const response = result.response;
  const allowed = (response.status?.code ?? 0) === 0;
  if (!allowed) {
    const denied =
      response.httpResponse?.$case === "deniedResponse" ? response.httpResponse.value : undefined;
    const status =
      denied?.status?.code !== undefined && denied.status.code !== 0 ? denied.status.code : 403;
    const callerHeaders = applyExtAuthzHeaderOptions([], denied?.headers ?? []);
    return {
      kind: "denied",
      response,
      caller: { status, headers: callerHeaders, body: denied?.body ?? "" },
    };
  }
  const ok =
    response.httpResponse?.$case === "okResponse" ? response.httpResponse.value : undefined;
  let upstreamHeaders = applyExtAuthzHeaderOptions(headers, ok?.headers ?? []);
  upstreamHeaders = removeExtAuthzHeaders(upstreamHeaders, ok?.headersToRemove ?? []);
  const path = applyQueryMutations(
    request.path,
    ok?.queryParametersToSet ?? [],
    ok?.queryParametersToRemove ?? [],
  );
  if (path !== request.path)
    upstreamHeaders = upstreamHeaders.map(([k, v]) => [k, k === ":path" ? path : v]);
  const responseHeadersToAdd = applyExtAuthzHeaderOptions([], ok?.responseHeadersToAdd ?? []);
  return {
    kind: "allowed",
    response,
    upstream: { path, headers: upstreamHeaders },
    responseHeadersToAdd,
  };
}

function applyQueryMutations(
  path: string,
  set: { key: string; value: string }[],
  remove: string[],
): string {
  if (set.length === 0 && remove.length === 0) return path;
  const url = new URL(path, "http://placeholder");
  for (const name of remove) url.searchParams.delete(name);
  for (const { key, value } of set) url.searchParams.set(key, value);
  return url.pathname + url.search;
}
