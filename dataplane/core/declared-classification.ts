import { GatewayError } from "./errors.js";
import { CLASSIFICATION_LEVELS, type ClassificationLevel } from "./identity.js";

/**
 * The classification a caller declared: the `X-Data-Classification` header, else the body's
 * `evident.classification` (the same rule for REST and Envoy).
 */
export function declaredClassificationOf(
  header: string | undefined,
  body: Record<string, unknown> = {},
): ClassificationLevel | undefined {
  const value = header?.trim().toLowerCase();
  if (value !== undefined && value !== "") {
    if (!(CLASSIFICATION_LEVELS as readonly string[]).includes(value)) {
      throw new GatewayError(
        "validation_failed",
        `X-Data-Classification must be one of ${CLASSIFICATION_LEVELS.join(", ")}`,
        {
          detail: [
            { loc: ["header", "x-data-classification"], msg: "unknown level", type: "enum" },
          ],
        },
      );
    }
    return value as ClassificationLevel;
  }
  const ext = body.evident as { classification?: ClassificationLevel } | undefined;
  return ext?.classification;
}
