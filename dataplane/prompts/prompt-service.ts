import { GatewayError } from "../core/errors.js";
import type { Caller } from "../core/identity.js";
import type { PromptUse } from "../core/inference-call.js";
import type { PromptFeedbackRepository } from "../store/prompt-feedback-repository.js";
import type { PromptRepository } from "../store/prompt-repository.js";
import { pickArm, stickyPoint } from "./pick-arm.js";
import type { PromptReference } from "./prompt-schemas.js";
import type { Prompt, PromptVersion, TemplateMessage } from "./prompt-types.js";
import { renderMessages } from "./render-template.js";

export interface RenderedPrompt {
  messages: TemplateMessage[];
  params: Record<string, unknown>;
  model: string | null;
  use: PromptUse;
}

/** Prompt lookups shared by the management API and inference. */
export class PromptService {
  constructor(
    readonly repo: PromptRepository,
    readonly feedback: PromptFeedbackRepository,
    private readonly random: () => number = Math.random,
  ) {}

  async prompt(customerId: string, slug: string): Promise<Prompt> {
    const p = await this.repo.get(customerId, slug);
    if (!p) throw new GatewayError("resource_not_found", `prompt '${slug}' not found`);
    return p;
  }

  async version(customerId: string, slug: string, version: number): Promise<PromptVersion> {
    const v = await this.repo.version(customerId, slug, version);
    if (!v)
      throw new GatewayError("resource_not_found", `prompt '${slug}' has no version ${version}`);
    return v;
  }

  /**
   * The version an inference call uses: the one named, else the A/B arm picked for this caller,
   * else the latest published one. Archived prompts and drafts are not usable for calls (422).
   */
  async resolveForCall(
    caller: Caller,
    ref: PromptReference,
    user: string | undefined,
  ): Promise<RenderedPrompt> {
    const customerId = caller.customer.id;
    const prompt = await this.prompt(customerId, ref.slug);
    if (prompt.archivedAt) {
      throw unusable(`prompt '${ref.slug}' is archived and cannot be used for new calls`);
    }
    let version = ref.version;
    let arm: string | null = null;
    let abTestId: string | null = null;
    const test = prompt.abTest;
    if (version === undefined && test?.enabled) {
      const point = test.sticky
        ? stickyPoint(test.id, `${caller.key.id}\u0000${user ?? ""}`)
        : this.random();
      const picked = pickArm(test.arms, point);
      if (picked) {
        version = picked.version;
        arm = `v${picked.version}`;
        abTestId = test.id;
      }
    }
    version ??= prompt.publishedVersion ?? undefined;
    if (version === undefined) {
      throw unusable(`prompt '${ref.slug}' has no published version`);
    }
    const v = await this.version(customerId, ref.slug, version);
    if (v.status !== "published") {
      throw unusable(
        `version ${version} of prompt '${ref.slug}' is a draft; publish it before using it in calls`,
      );
    }
    return {
      messages: renderMessages(v.messages, v.variables, ref.variables, [
        "body",
        "evident",
        "prompt",
        "variables",
      ]),
      params: v.params,
      model: v.model,
      use: { slug: ref.slug, version: v.version, arm, abTestId },
    };
  }

  /** A chat completion body with its `evident.prompt` reference (if any) rendered into messages. */
  async expand(
    caller: Caller,
    body: Record<string, unknown>,
  ): Promise<{ body: Record<string, unknown>; use: PromptUse | undefined }> {
    const ref = (body.evident as { prompt?: PromptReference } | undefined)?.prompt;
    if (!ref) return { body, use: undefined };
    const user = typeof body.user === "string" ? body.user : undefined;
    const rendered = await this.resolveForCall(caller, ref, user);
    return { body: expandedBody(body, rendered), use: rendered.use };
  }
}

function unusable(message: string): GatewayError {
  return new GatewayError("validation_failed", message, {
    detail: [{ loc: ["body", "evident", "prompt"], msg: message, type: "prompt_unusable" }],
  });
}

/**
 * A chat completion body that references a prompt, expanded: the rendered messages first, then any
 * messages the caller sent; the version's parameters fill fields the caller did not set.
 */
export function expandedBody(
  body: Record<string, unknown>,
  rendered: RenderedPrompt,
): Record<string, unknown> {
  const own = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  const out: Record<string, unknown> = { ...rendered.params, ...body };
  out.messages = [...rendered.messages, ...own];
  const { prompt: _ref, ...ours } = (body.evident ?? {}) as Record<string, unknown>;
  if (Object.keys(ours).length > 0) out.evident = ours;
  else delete out.evident;
  return out;
}
