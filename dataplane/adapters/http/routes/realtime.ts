import { z } from "zod";
import { GatewayError } from "../../../core/errors.js";
import { errorSchema } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";

/**
 * /v1/realtime is a WebSocket endpoint (see adapters/http/realtime-upgrade.ts, docs/realtime.md):
 * an upgrade request never reaches this route. It documents the endpoint in /openapi.json and
 * answers a plain GET with 426.
 */
export function realtimeRoutes(): AnyRouteSpec[] {
  return [
    route({
      method: "GET",
      path: "/v1/realtime",
      tag: "compatible",
      summary:
        "Realtime session (WebSocket upgrade, OpenAI Realtime protocol): ?model=...; auth by Authorization: Bearer or the openai-insecure-api-key.<key> subprotocol",
      auth: false,
      query: z.looseObject({ model: z.string().min(1).max(256).optional() }),
      responses: {
        101: { description: "switching protocols: the session's events follow on the WebSocket" },
        401: {
          description: "missing or invalid API key (before the upgrade)",
          schema: errorSchema,
        },
        403: { description: "model requires a higher tier", schema: errorSchema },
        404: { description: "model not found or not a realtime model", schema: errorSchema },
        422: { description: "model missing", schema: errorSchema },
        426: { description: "a plain HTTP request: upgrade to a WebSocket", schema: errorSchema },
        429: { description: "request limit or concurrent sessions exceeded", schema: errorSchema },
        502: { description: "the realtime backend is unavailable", schema: errorSchema },
      },
      handler: async () => {
        throw new GatewayError(
          "upgrade_required",
          "this endpoint speaks WebSocket: connect with Upgrade: websocket",
          { headers: { upgrade: "websocket" } },
        );
      },
    }),
  ];
}
