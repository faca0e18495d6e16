import { z } from "zod";
import { GatewayError } from "../../../core/errors.js";
import { promptSlug } from "../../../prompts/prompt-schemas.js";
import type { Prompt } from "../../../prompts/prompt-types.js";
import { errorSchema } from "../common-schemas.js";

export const promptErrors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  404: { description: "no such prompt or version (of this customer)", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};
export const promptConflict = {
  409: {
    description: "archived prompt, published (immutable) version, or slug taken",
    schema: errorSchema,
  },
};
export const slugParams = z.strictObject({ slug: promptSlug });
export function notArchived(p: Prompt): void {
  if (p.archivedAt) {
    throw new GatewayError(
      "invalid_state_transition",
      `prompt '${p.slug}' is archived: it can be read but not changed`,
    );
  }
}
