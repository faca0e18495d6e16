import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { AppContext } from "../../app/context.js";
import { GatewayError } from "../../core/errors.js";
import type { Caller } from "../../core/identity.js";
import { withBodyDeadline } from "./body-deadline.js";
import { runInRequestScope, weakScope } from "../../observability/request-scope.js";
import { clientErrorResponse, fromFrameworkError, sendError } from "./error-reply.js";
import { requestIdFrom } from "./request-id.js";
import { checkRouteRole } from "./role-routes.js";
import { pathMatcher, type AnyRouteSpec, type RecordRefused } from "./route-table.js";
import { RequestLabels, UNMATCHED } from "./request-labels.js";
import { parseOrThrow } from "./validation.js";

declare module "fastify" {
  interface FastifyRequest {
    caller: Caller | undefined;
    startedAt: bigint;
    /** The matched route's path (the metrics label), "unmatched" until a route is matched. */
    routePath: string;
  }
}

/** Builds the REST façade for the given route groups. Does not listen. */
/** A per-key limit on the management API: returns headers to send, or throws a 429. */
export type ManagementLimit = (caller: Caller) => Promise<Record<string, string>>;

export function buildHttpServer(
  ctx: AppContext,
  routes: readonly AnyRouteSpec[],
  managementLimit: ManagementLimit = async () => ({}),
): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: ctx.config.MAX_BODY_BYTES,
    genReqId: (req) => requestIdFrom(req.headers["x-request-id"], ctx.config.TRUST_REQUEST_ID),
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: "idle",
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // Errors Fastify raises before routing (a path segment over 100 characters, a bad URL) and
    // Node's parser errors (oversized headers) are answered in the envelope with a request id.
    frameworkErrors: (err, req, reply) => {
      reply.header("x-request-id", req.id);
      sendError(reply, fromFrameworkError(err));
    },
    clientErrorHandler: (err, socket) => {
      const response = clientErrorResponse(err, requestIdFrom(undefined, false));
      if (response && socket.writable) socket.end(response);
      else socket.destroy();
    },
  });
  // An empty body with a JSON content type (many generated clients send one on DELETE and GET) is
  // no body; anything else goes through Fastify's JSON parser (prototype poisoning refused).
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    parseJson(req, text, done);
  });
  // JSON APIs: a text/plain body is refused with 415 rather than parsed as a string.
  app.removeContentTypeParser("text/plain");
  // Multipart uploads reach their (rawBody) route as a stream; the route enforces its own limit.
  app.addContentTypeParser("multipart/form-data", (_req, payload, done) => done(null, payload));
  app.decorateRequest("caller", undefined);
  app.decorateRequest("startedAt", 0n);
  app.decorateRequest("routePath", UNMATCHED);

  const known = routes.map((r) => ({ method: r.method, match: pathMatcher(r.path) }));

  // Callback hooks (no promise per request for synchronous work).
  app.addHook("onRequest", (req, reply, done) => {
    req.startedAt = process.hrtime.bigint();
    reply.header("x-request-id", req.id);
    done();
  });

  const requestLabels = new RequestLabels(ctx.metrics.httpRequests, ctx.metrics.httpDuration);
  app.addHook("onResponse", (req, reply, done) => {
    const series = requestLabels.of(req.routePath, req.method, reply.statusCode);
    const seconds = Number(process.hrtime.bigint() - req.startedAt) / 1e9;
    series.requests.inc();
    series.duration.observe(seconds);
    if (ctx.logger.isLevelEnabled("info"))
      ctx.logger.info(
        { request_id: req.id, ...series.labels, duration_ms: Math.round(seconds * 1e6) / 1e3 },
        "request",
      );
    done();
  });

  app.addHook("onRequestAbort", async (req) => {
    ctx.logger.info(
      { request_id: req.id, route: req.routeOptions.url ?? "unmatched", method: req.method },
      "request aborted by the client",
    );
  });

  app.setErrorHandler(async (err, req, reply) => replyWithError(ctx, err, req, reply));

  app.setNotFoundHandler(async (req, reply) => {
    // An unauthenticated caller learns nothing about which paths exist.
    await authenticate(ctx, req);
    const path = req.url.split("?")[0] ?? req.url;
    const allowed = known.filter((k) => k.match.test(path)).map((k) => k.method);
    if (allowed.length > 0) {
      reply.header("allow", [...new Set(allowed)].join(", "));
      throw new GatewayError(
        "method_not_allowed",
        `method ${req.method} is not allowed on ${path}; allowed: ${[...new Set(allowed)].join(", ")}`,
      );
    }
    throw new GatewayError("route_not_found", `no route for ${req.method} ${path}`);
  });

  for (const spec of routes) register(app, ctx, spec, managementLimit);
  return app;
}

async function authenticate(ctx: AppContext, req: FastifyRequest): Promise<Caller> {
  const caller = await ctx.authenticator.authenticate(req.headers.authorization);
  req.caller = caller;
  return caller;
}

function register(
  app: FastifyInstance,
  ctx: AppContext,
  spec: AnyRouteSpec,
  managementLimit: ManagementLimit,
): void {
  const isManagement = spec.managementLimit ?? spec.path.startsWith("/api/");
  app.route({
    method: spec.method,
    url: spec.path,
    errorHandler: spec.recordRefused
      ? async (err, req, reply) => replyWithError(ctx, err, req, reply, spec.recordRefused)
      : undefined,
    onRequest: [
      (req, _reply, done) => {
        req.routePath = spec.path;
        done();
      },
      ...(spec.auth === false
        ? []
        : [
            async (req: FastifyRequest, reply: FastifyReply) => {
              const caller = await authenticate(ctx, req);
              checkRouteRole(caller, spec.method, spec.path);
              if (isManagement)
                for (const [k, v] of Object.entries(await managementLimit(caller)))
                  reply.header(k, v);
            },
          ]),
    ],
    preParsing:
      spec.auth === false
        ? undefined
        : (req, reply, payload, done) => {
            const type = req.headers["content-type"];
            done(null, withBodyDeadline(payload, reply, ctx.config.REQUEST_BODY_TIMEOUT_MS, type));
          },
    handler: (req: FastifyRequest, reply: FastifyReply) =>
      runInRequestScope(weakScope(req.id, reply, failEscaped), () => handle(ctx, spec, req, reply)),
  });
}

/** The one error path of the REST façade; a refused inference call still gets its audit record. */
async function replyWithError(
  ctx: AppContext,
  err: unknown,
  req: FastifyRequest,
  reply: FastifyReply,
  recordRefused?: RecordRefused,
): Promise<FastifyReply> {
  const mapped = fromFrameworkError(err);
  if (mapped.status >= 500 && mapped.code === "internal_error") {
    ctx.logger.error({ request_id: req.id, err: describe(err) }, "unhandled error");
  }
  if (recordRefused && req.caller) {
    await recordRefused(req, mapped).catch((recordErr: unknown) =>
      ctx.logger.error(
        { request_id: req.id, err: describe(recordErr) },
        "could not record a refused call",
      ),
    );
  }
  return sendError(reply, mapped);
}

/** An error escaped the request's own handling (see process-guards): end it as a failure. */
function failEscaped(reply: FastifyReply): void {
  if (reply.sent || reply.raw.headersSent) {
    reply.raw.destroy();
    return;
  }
  sendError(reply, new GatewayError("internal_error", "internal error"));
}

async function handle(
  ctx: AppContext,
  spec: AnyRouteSpec,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const body = spec.body ? parseOrThrow(spec.body, req.body ?? {}, "body") : undefined;
  const query = spec.query ? parseOrThrow(spec.query, req.query ?? {}, "query") : undefined;
  const params = spec.params ? parseOrThrow(spec.params, req.params ?? {}, "path") : undefined;
  const result = await spec.handler({
    body,
    query,
    params,
    caller: req.caller,
    requestId: req.id,
    request: req,
    reply,
  });
  if (result === undefined) return reply;
  if (spec.audit && req.caller && result.status < 400) {
    await recordManagement(ctx, req.caller, spec.audit, result.body, body, params);
  }
  reply.status(result.status);
  const headers = result.headers;
  if (headers !== undefined)
    for (const name of Object.keys(headers)) reply.header(name, headers[name]);
  if (result.body === undefined) return reply.send();
  return reply.send(result.body);
}

/** Never recorded in the audit log's details: secrets and plaintext keys. */
const SECRET_FIELDS = new Set(["credential", "key", "api_key", "password"]);

async function recordManagement(
  ctx: AppContext,
  caller: Caller,
  action: string,
  responseBody: unknown,
  requestBody: unknown,
  params: unknown,
): Promise<void> {
  const res = (responseBody ?? {}) as { id?: unknown; customer_id?: unknown };
  const details: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((requestBody ?? {}) as Record<string, unknown>)) {
    details[k] = SECRET_FIELDS.has(k) ? "[not recorded]" : v;
  }
  const firstParam = Object.values((params ?? {}) as Record<string, unknown>)[0];
  const subject =
    typeof res.id === "string" ? res.id : typeof firstParam === "string" ? firstParam : null;
  const customerId = typeof res.customer_id === "string" ? res.customer_id : undefined;
  await ctx.audit.management(caller, action, subject, details, customerId);
}

function describe(err: unknown): { name: string; message: string; stack?: string } {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { name: "unknown", message: String(err) };
}
