import { GatewayError } from "../../core/errors.js";
import { CLASSIFICATION_LEVELS, type ClassificationLevel } from "../../core/identity.js";

/**
 * The classification a caller declared: the `X-Data-Classification` header, else the body's
 * `evident.classification`. Same rule and error as the REST path's `declaredClassification`
 * (adapters/http/compat/call-lifecycle.ts), which takes a FastifyRequest; this one takes the
 * header's value so both Envoy adapters can use it.
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
