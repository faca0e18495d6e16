/**
 * What Envoy's ext_proc filter does with each ProcessingResponse, as pure functions over the HTTP
 * message it holds (headers, body, trailers). Copied from Envoy's behaviour (processor_state.cc,
 * mutation_utils.cc) for the Envoy test double; Envoy itself cannot run here.
 */
import {
  type BodyMutation,
  type CommonResponse,
  CommonResponse_ResponseStatus,
  type HeaderMutation,
  type ImmediateResponse,
  type ProcessingResponse,
} from "../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import {
  applyExtProcHeaderMutation,
  type HeaderEncoding,
  type HeaderList,
  headerValue,
  withoutHeader,
} from "./envoy-headers.js";

/** One direction of the HTTP exchange as Envoy forwards it (to the upstream, or to the caller). */
export interface HttpMessageState {
  headers: HeaderList;
  body: Buffer;
  trailers: HeaderList;
}

/** ext_proc processing_mode body send mode, per direction (BUFFERED_PARTIAL is not modelled). */
export type BodyMode = "NONE" | "BUFFERED" | "STREAMED";

export type ApplyResult =
  | {
      ok: true;
      /** Header names Envoy refused to change (default HeaderMutationRules); Envoy ignores them. */
      rejected: string[];
      clearRouteCache: boolean;
      /** CONTINUE_AND_REPLACE: Envoy sends nothing more for this direction to the processor. */
      replaced: boolean;
    }
  | { ok: false; reason: string };

/** A reply Envoy sends to the caller itself, without (more of) the upstream's answer. */
export interface LocalReply {
  status: number;
  headers: HeaderList;
  body: Buffer;
  details: string;
  grpcStatus?: number;
}

function applyHeaderMutation(
  state: HttpMessageState,
  mutation: HeaderMutation | undefined,
  encoding: HeaderEncoding,
  replacing: boolean,
): { ok: true; rejected: string[] } | { ok: false; reason: string } {
  if (mutation === undefined) return { ok: true, rejected: [] };
  const result = applyExtProcHeaderMutation(state.headers, mutation, encoding, replacing);
  if (!result.ok) return result;
  state.headers = result.headers;
  return { ok: true, rejected: result.rejected };
}

function mutateBody(body: Buffer, mutation: BodyMutation | undefined): Buffer {
  if (mutation?.mutation?.$case === "body") return Buffer.from(mutation.mutation.value);
  if (mutation?.mutation?.$case === "clearBody" && mutation.mutation.value) return Buffer.alloc(0);
  return body;
}

/**
 * A HeadersResponse: header mutations apply with CONTINUE and CONTINUE_AND_REPLACE; a body
 * mutation only with CONTINUE_AND_REPLACE, which also drops content-length and replaces the body.
 */
export function applyHeadersResponse(
  state: HttpMessageState,
  common: CommonResponse | undefined,
  encoding: HeaderEncoding,
): ApplyResult {
  const replacing = common?.status === CommonResponse_ResponseStatus.CONTINUE_AND_REPLACE;
  const headers = applyHeaderMutation(state, common?.headerMutation, encoding, replacing);
  if (!headers.ok) return headers;
  if (replacing && common?.bodyMutation !== undefined) {
    state.headers = withoutHeader(state.headers, "content-length");
    state.body = mutateBody(state.body, common.bodyMutation);
  }
  return {
    ok: true,
    rejected: headers.rejected,
    clearRouteCache: common?.clearRouteCache === true,
    replaced: replacing,
  };
}

/**
 * A BodyResponse for `chunk`. BUFFERED: the headers are still held, so header mutations apply, and
 * a body mutation whose length differs from a content-length header fails the request (Envoy's
 * "mismatch between content length and the length of the mutated body"). STREAMED: the body
 * mutation applies to this chunk only and header mutations are ignored. The resulting chunk is
 * appended to the forwarded body.
 */
export function applyBodyResponse(
  state: HttpMessageState,
  common: CommonResponse | undefined,
  chunk: Buffer,
  mode: BodyMode,
  encoding: HeaderEncoding,
): ApplyResult {
  let rejected: string[] = [];
  if (mode === "BUFFERED") {
    const headers = applyHeaderMutation(state, common?.headerMutation, encoding, false);
    if (!headers.ok) return headers;
    rejected = headers.rejected;
    const contentLength = headerValue(state.headers, "content-length");
    const mutation = common?.bodyMutation?.mutation;
    if (mutation !== undefined && contentLength !== undefined) {
      const newLength = mutation.$case === "body" ? mutation.value.length : 0;
      if (Number(contentLength) !== newLength) {
        return {
          ok: false,
          reason: "mismatch between content length and the length of the mutated body",
        };
      }
    }
  }
  state.body = Buffer.concat([state.body, mutateBody(chunk, common?.bodyMutation)]);
  return { ok: true, rejected, clearRouteCache: common?.clearRouteCache === true, replaced: false };
}

export function applyTrailersResponse(
  state: HttpMessageState,
  mutation: HeaderMutation | undefined,
  encoding: HeaderEncoding,
): ApplyResult {
  if (mutation === undefined)
    return { ok: true, rejected: [], clearRouteCache: false, replaced: false };
  const result = applyExtProcHeaderMutation(state.trailers, mutation, encoding);
  if (!result.ok) return result;
  state.trailers = result.headers;
  return { ok: true, rejected: result.rejected, clearRouteCache: false, replaced: false };
}

/** Applies the answer to one message (its phase already checked) to that direction's state. */
export function applyProcessingResponse(
  state: HttpMessageState,
  response: ProcessingResponse,
  chunk: Buffer,
  mode: BodyMode,
  encoding: HeaderEncoding,
): ApplyResult {
  const answer = response.response;
  switch (answer?.$case) {
    case "requestHeaders":
    case "responseHeaders":
      return applyHeadersResponse(state, answer.value.response, encoding);
    case "requestBody":
    case "responseBody":
      return applyBodyResponse(state, answer.value.response, chunk, mode, encoding);
    case "requestTrailers":
    case "responseTrailers":
      return applyTrailersResponse(state, answer.value.headerMutation, encoding);
    default:
      return { ok: false, reason: `not an answer to a message: ${answer?.$case ?? "empty"}` };
  }
}

/** The reply Envoy sends for an ImmediateResponse (a status below 200 or absent becomes 200). */
export function localReplyFrom(immediate: ImmediateResponse, encoding: HeaderEncoding): LocalReply {
  const code = immediate.status?.code ?? 0;
  const mutation = immediate.headers;
  const headers =
    mutation === undefined ? undefined : applyExtProcHeaderMutation([], mutation, encoding);
  return {
    status: code >= 200 ? code : 200,
    headers: headers?.ok === true ? headers.headers : [],
    body: Buffer.from(immediate.body),
    details: immediate.details,
    ...(immediate.grpcStatus === undefined ? {} : { grpcStatus: immediate.grpcStatus.status }),
  };
}
