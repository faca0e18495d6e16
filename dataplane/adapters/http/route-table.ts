import type { FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import type { GatewayError } from "../../core/errors.js";
import type { Caller } from "../../core/identity.js";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface HandlerInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
  /** Undefined only on routes declared with `auth: false`. */
  caller: Caller | undefined;
  requestId: string;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** One documented response; `contentType` for bodies that are not JSON (default application/json). */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export type RecordRefused = (request: FastifyRequest, err: GatewayError) => Promise<void>;

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteSpec<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
> {
  method: HttpMethod;
  /** Fastify path syntax: /api/v1/keys/:key_id */
  path: string;
  summary: string;
  tag: string;
  /** Default true: the route needs `Authorization: Bearer ev_sk_...`. */
  auth?: boolean;
  body?: B;
  query?: Q;
  params?: P;
  /** Documented responses: status -> description and schema. */
  responses: Record<number, ResponseSpec>;
  /** Parse the body as raw bytes/stream instead of JSON (multipart uploads). */
  rawBody?: boolean;
  /** The bodies a rawBody route accepts, by content type, for /openapi.json. */
  requestBodies?: Record<string, z.ZodType>;
  /** A management action recorded in the audit log after success (e.g. "key.revoke"). */
  audit?: string;
  /**
   * Called when an authenticated request to this route fails before or outside its handler's own
   * accounting (malformed JSON, a body over the limit, validation): inference routes record such a
   * refused call in the audit log.
   */
  recordRefused?: RecordRefused;
  /**
   * Returns the response, or `undefined` when the handler wrote the reply itself (streams).
   */
  handler: (input: HandlerInput<Infer<B>, Infer<Q>, Infer<P>>) => Promise<RouteResult | undefined>;
}

/** A route with its type parameters erased, as the table stores it. */
export interface AnyRouteSpec {
  method: HttpMethod;
  path: string;
  summary: string;
  tag: string;
  auth?: boolean;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  responses: Record<number, ResponseSpec>;
  rawBody?: boolean;
  requestBodies?: Record<string, z.ZodType>;
  audit?: string;
  recordRefused?: RecordRefused;
  handler: (input: HandlerInput<unknown, unknown, unknown>) => Promise<RouteResult | undefined>;
}

/** Declares a route with typed handler input; the result goes in a group's route list. */
export function route<
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<B, Q, P>): AnyRouteSpec {
  return spec as unknown as AnyRouteSpec;
}

/** Turns a fastify path into a matcher, for 405 detection. */
export function pathMatcher(path: string): RegExp {
  const pattern = path
    .split("/")
    .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${pattern}/?$`);
}
