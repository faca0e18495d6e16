import type { Prompt, PromptAbTest, PromptVersion } from "./prompt-types.js";

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function abTestJson(t: PromptAbTest) {
  return {
    id: t.id,
    arms: t.arms,
    sticky: t.sticky,
    enabled: t.enabled,
    started_at: t.startedAt,
    ended_at: t.endedAt,
  };
}

/** PromptResponse. */
export function promptJson(p: Prompt) {
  return {
    object: "prompt" as const,
    slug: p.slug,
    customer_id: p.customerId,
    name: p.name,
    description: p.description,
    tags: p.tags,
    archived: p.archivedAt !== null,
    archived_at: iso(p.archivedAt),
    latest_version: p.latestVersion,
    published_version: p.publishedVersion,
    ab_test: p.abTest ? abTestJson(p.abTest) : null,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** PromptVersionResponse. */
export function versionJson(v: PromptVersion) {
  return {
    object: "prompt.version" as const,
    slug: v.slug,
    version: v.version,
    status: v.status,
    messages: v.messages,
    variables: v.variables,
    model: v.model,
    params: v.params,
    note: v.note,
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
    published_at: iso(v.publishedAt),
  };
}
