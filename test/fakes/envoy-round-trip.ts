/**
 * "Envoy plays" test double, whole exchange: one HTTP request as Envoy would handle it with the
 * filter chain of docs/envoy/envoy.yaml (ext_authz headers-only, then ext_proc with a BUFFERED
 * request body and a STREAMED response body, then the router on x-evident-upstream). The router
 * part is played with fetch to the URL named by x-evident-upstream and the rewritten :path.
 */
import {
  connectEnvoy,
  type CheckOutcome,
  type EnvoyClients,
  ExtProcSession,
  type ExtProcSessionOptions,
  type HeaderList,
  headerValue,
  type HttpRequestDescription,
  sendCheck,
  type SendCheckOptions,
} from "./envoy-client.js";

export { connectEnvoy, type EnvoyClients };

/** What the caller of Envoy gets, and what happened on the way. */
export interface EnvoyExchange {
  status: number;
  headers: HeaderList;
  body: string;
  /** Undefined when the chain has no ext_authz. */
  check: CheckOutcome | undefined;
  session: ExtProcSession | undefined;
  /** The request as the backend received it (undefined when Envoy answered itself). */
  forwarded: { url: string; headers: HeaderList; body: string } | undefined;
  /** Who produced the answer. */
  answeredBy: "ext_authz" | "ext_proc" | "upstream" | "envoy";
}

export interface ExchangeOptions {
  check?: SendCheckOptions;
  /** A filter chain without ext_authz (ext_proc alone). */
  withoutExtAuthz?: boolean;
  session?: ExtProcSessionOptions;
  /** Reset the exchange (client gone) after this many response body chunks. */
  resetAfterChunks?: number;
}

const HOP_BY_HOP = new Set(["host", "content-length", "connection", "transfer-encoding"]);

/** Sends one HTTP request through the played Envoy to whatever backend the data plane picks. */
export async function throughEnvoy(
  envoy: EnvoyClients,
  request: HttpRequestDescription,
  options: ExchangeOptions = {},
): Promise<EnvoyExchange> {
  const base = { session: undefined, forwarded: undefined };
  const check =
    options.withoutExtAuthz === true
      ? undefined
      : await sendCheck(envoy.authorization, request, options.check);
  if (check?.kind === "denied") return { ...base, ...check.caller, check, answeredBy: "ext_authz" };
  if (check?.kind === "error" && check.caller) {
    return { ...base, ...check.caller, check, answeredBy: "ext_authz" };
  }
  const afterAuthz =
    check === undefined
      ? request.headers
      : check.kind === "allowed"
        ? check.upstream.headers
        : (check.upstream?.headers ?? []);
  const session = new ExtProcSession(
    envoy.externalProcessor,
    { ...request, headers: afterAuthz },
    options.session,
  );
  const local = () => ({
    ...base,
    session,
    check,
    status: session.localReply!.status,
    headers: session.localReply!.headers,
    body: session.localReply!.body.toString("utf8"),
    answeredBy: "ext_proc" as const,
  });
  const hasBody = request.body !== undefined;
  const headersResult = await session.requestHeaders({ endOfStream: !hasBody });
  if (session.localReply) return local();
  if (hasBody && headersResult.kind !== "passed-through") {
    await session.requestBody(request.body!, { endOfStream: true });
    if (session.localReply) return local();
  }
  const upstreamBase = headerValue(session.upstream.headers, "x-evident-upstream");
  if (upstreamBase === undefined) {
    await session.end();
    return {
      ...base,
      session,
      check,
      status: 404,
      headers: [],
      body: "",
      answeredBy: "envoy",
    };
  }
  const url = `${new URL(upstreamBase).origin}${headerValue(session.upstream.headers, ":path")}`;
  const headers = session.upstream.headers.filter(
    ([name]) => !name.startsWith(":") && !HOP_BY_HOP.has(name),
  );
  const body = session.upstream.body.toString("utf8");
  const forwarded = { url, headers, body };
  const abort = new AbortController();
  const response = await fetch(url, {
    method: request.method,
    headers,
    body: request.method === "GET" ? undefined : body,
    signal: abort.signal,
  });
  const responseHeaders: HeaderList = [];
  response.headers.forEach((value, name) => responseHeaders.push([name, value]));
  await session.responseHeaders(response.status, responseHeaders);
  if (session.localReply) {
    abort.abort();
    return { ...local(), forwarded };
  }
  let chunks = 0;
  let reset = false;
  const reader = response.body?.getReader();
  for (;;) {
    const next = reader ? await reader.read() : { done: true as const, value: undefined };
    if (next.done) {
      await session.responseBody(Buffer.alloc(0), { endOfStream: true });
      break;
    }
    await session.responseBody(Buffer.from(next.value));
    chunks += 1;
    if (options.resetAfterChunks !== undefined && chunks >= options.resetAfterChunks) {
      abort.abort();
      await session.reset();
      reset = true;
      break;
    }
    if (session.localReply) break;
  }
  if (session.localReply) {
    abort.abort();
    return { ...local(), forwarded };
  }
  if (!reset) await session.end();
  return {
    ...base,
    session,
    check,
    forwarded,
    status: Number(headerValue(session.downstream.headers, ":status")),
    headers: session.downstream.headers,
    body: session.downstream.body.toString("utf8"),
    answeredBy: "upstream",
  };
}
