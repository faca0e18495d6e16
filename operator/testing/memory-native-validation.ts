/** Test double support: validation of the in-memory native API, shaped like the data plane's 422s. */
import { GatewayError, type ValidationIssue } from "../../dataplane/core/errors.js";
import type { RouteBody, RuleBody } from "../native/native-api.js";

export function clone<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}

export function issue(loc: string[], msg: string): ValidationIssue {
  return { loc, msg, type: "value_error" };
}

export function validation(message: string, detail: ValidationIssue[]): GatewayError {
  return new GatewayError("validation_failed", message, { detail });
}

export function requireFields(body: object, fields: string[]): void {
  const record = body as Record<string, unknown>;
  const missing = fields.filter((f) => record[f] === undefined || record[f] === "");
  if (missing.length > 0)
    throw validation(
      "missing fields",
      missing.map((f) => issue(["body", f], "field required")),
    );
}

export function validateRoute(body: Partial<RouteBody>): void {
  requireFields(body, ["customer_id", "strategy"]);
  const targets = body.targets ?? [];
  if (targets.length === 0)
    throw validation("a route needs targets", [issue(["body", "targets"], "at least one target")]);
  if (body.strategy === "weighted" && targets.every((t) => t.weight <= 0)) {
    throw validation("weights must not all be zero", [
      issue(["body", "targets"], "weights sum to zero"),
    ]);
  }
}

export function validateRule(body: Partial<RuleBody>): void {
  requireFields(body, ["customer_id", "name", "kind", "action", "applies_to"]);
  if (body.kind === "regex") {
    try {
      new RegExp(body.pattern ?? "");
    } catch {
      throw validation("invalid regular expression", [
        issue(["body", "pattern"], "not a valid regular expression"),
      ]);
    }
  }
}
