import { GatewayError } from "../../core/errors.js";
import type { Caller } from "../../core/identity.js";
import type { HttpMethod } from "./route-table.js";

/**
 * The only routes an operator key may call: what the Kubernetes operator's native client uses
 * (operator/native/native-client.ts). Everything else answers 403 for it.
 */
const OPERATOR_ROUTES: ReadonlySet<string> = new Set([
  "GET /api/v1/models",
  "POST /api/v1/models",
  "GET /api/v1/models/:model_id",
  "PATCH /api/v1/models/:model_id",
  "DELETE /api/v1/models/:model_id",
  "GET /api/v1/deployments",
  "POST /api/v1/deployments",
  "GET /api/v1/deployments/:deployment_id",
  "PATCH /api/v1/deployments/:deployment_id",
  "DELETE /api/v1/deployments/:deployment_id",
  "GET /api/v1/routes",
  "POST /api/v1/routes",
  "GET /api/v1/routes/:route_id",
  "PATCH /api/v1/routes/:route_id",
  "DELETE /api/v1/routes/:route_id",
  "GET /api/v1/guardrails/rules",
  "POST /api/v1/guardrails/rules",
  "GET /api/v1/guardrails/rules/:rule_id",
  "PATCH /api/v1/guardrails/rules/:rule_id",
  "DELETE /api/v1/guardrails/rules/:rule_id",
  "GET /api/v1/audit/legal-hold",
  "POST /api/v1/audit/legal-hold",
  "DELETE /api/v1/audit/legal-hold/:hold_id",
]);

/** Refuses (403) a route the caller's role may never call, before any handler runs. */
export function checkRouteRole(caller: Caller, method: HttpMethod, path: string): void {
  if (caller.key.role !== "operator") return;
  if (OPERATOR_ROUTES.has(`${method} ${path}`)) return;
  throw new GatewayError(
    "insufficient_role",
    `an operator key may not call ${method} ${path}; it manages models, deployments, routes, guardrail rules and legal holds only`,
  );
}
