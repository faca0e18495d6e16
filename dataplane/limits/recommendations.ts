import type { Caller, Tier } from "../core/identity.js";
import { TIERS, tierRank } from "../core/identity.js";
import type { RoutableModel } from "../routing/routing-types.js";
import type { UsageRepository } from "../store/usage-repository.js";
import type { BudgetStatus } from "./budget-status.js";

export interface Recommendation {
  kind: "cheaper_model" | "cache_repeated_prompts" | "tier_upgrade" | "budget_exhaustion";
  title: string;
  detail: string;
  evidence: Record<string, unknown>;
  estimated_monthly_saving_usd: number;
}

export interface RecommendationDeps {
  usage: UsageRepository;
  /** Models callers can name now (the routing table). */
  models: () => readonly RoutableModel[];
  status: (customerId: string) => Promise<BudgetStatus>;
  now: () => number;
}

/** Prompts shorter than this (average tokens) are "short": a smaller model usually suffices. */
export const SHORT_PROMPT_TOKENS = 500;
/** 429s above this share of requests suggest a higher tier. */
export const LIMIT_HIT_SHARE = 0.01;
const DAY_MS = 86_400_000;
const usd = (n: number) => Math.round(n * 100) / 100;

function cheaperModel(
  tier: Tier,
  m: {
    model: string;
    requests: number;
    promptTokens: number;
    completionTokens: number;
    costUsd: number;
  },
  models: readonly RoutableModel[],
  perMonth: number,
): Recommendation | undefined {
  const current = models.find((x) => x.name === m.model);
  if (!current || m.requests === 0) return undefined;
  const avgPrompt = m.promptTokens / m.requests;
  if (avgPrompt >= SHORT_PROMPT_TOKENS) return undefined;
  const costWith = (x: RoutableModel) =>
    (m.promptTokens / 1000) * x.pricing.inputPer1k +
    (m.completionTokens / 1000) * x.pricing.outputPer1k;
  const candidates = models
    .filter((x) => x.name !== m.model && x.modality === current.modality)
    .filter((x) => tierRank(x.requiredTier) <= tierRank(tier) && x.targets.length > 0)
    .map((x) => ({ x, cost: costWith(x) }))
    .filter((c) => c.cost < m.costUsd)
    .sort((a, b) => a.cost - b.cost);
  const best = candidates[0];
  if (!best) return undefined;
  const saving = (m.costUsd - best.cost) * perMonth;
  return {
    kind: "cheaper_model",
    title: `Use ${best.x.name} instead of ${m.model} for short prompts`,
    detail:
      `Your ${m.requests} calls to ${m.model} averaged ${Math.round(avgPrompt)} prompt tokens. ` +
      `${best.x.name} (same modality, ${current.modality}) would have cost ` +
      `$${usd(best.cost)} instead of $${usd(m.costUsd)}.`,
    evidence: {
      model: m.model,
      calls: m.requests,
      avg_prompt_tokens: Math.round(avgPrompt),
      prompt_tokens: m.promptTokens,
      completion_tokens: m.completionTokens,
      cost_usd: usd(m.costUsd),
      alternative: best.x.name,
      alternative_cost_usd: usd(best.cost),
      alternative_pricing: {
        input_per_1k: best.x.pricing.inputPer1k,
        output_per_1k: best.x.pricing.outputPer1k,
      },
    },
    estimated_monthly_saving_usd: usd(saving),
  };
}

/**
 * Usage-based hints for the caller's customer over the last `windowDays`, each with the numbers
 * it rests on; savings are scaled from the window to 30 days.
 */
export async function recommendationsFor(
  deps: RecommendationDeps,
  caller: Caller,
  windowDays: number,
): Promise<Recommendation[]> {
  const customerId = caller.customer.id;
  const now = deps.now();
  const from = new Date(now - windowDays * DAY_MS);
  const to = new Date(now + 1);
  const perMonth = 30 / windowDays;
  const [byModel, repeated, hits, status] = await Promise.all([
    deps.usage.byModel(customerId, from, to),
    deps.usage.repeatedPrompts(customerId, from, to),
    deps.usage.limitHits(customerId, from, to),
    deps.status(customerId),
  ]);
  const out: Recommendation[] = [];
  const models = deps.models();
  for (const m of byModel) {
    const hint = cheaperModel(caller.customer.tier, m, models, perMonth);
    if (hint) out.push(hint);
  }
  if (repeated.repeatCalls > 0) {
    out.push({
      kind: "cache_repeated_prompts",
      title: "Cache responses to repeated identical requests",
      detail:
        `${repeated.repeatCalls} calls repeated one of ${repeated.distinctPrompts} identical ` +
        `requests sent earlier in the last ${windowDays} days; caching them would avoid their cost.`,
      evidence: {
        distinct_repeated_requests: repeated.distinctPrompts,
        repeat_calls: repeated.repeatCalls,
        repeat_cost_usd: usd(repeated.repeatCostUsd),
        window_days: windowDays,
      },
      estimated_monthly_saving_usd: usd(repeated.repeatCostUsd * perMonth),
    });
  }
  const tier = caller.customer.tier;
  const next = TIERS[tierRank(tier) + 1];
  if (next && hits.rateLimited > 0 && hits.rateLimited >= LIMIT_HIT_SHARE * hits.requests) {
    out.push({
      kind: "tier_upgrade",
      title: `Upgrade from ${tier} to ${next}: rate limits are hit often`,
      detail:
        `${hits.rateLimited} of ${hits.requests} requests in the last ${windowDays} days were ` +
        `refused with 429 by the ${tier} tier's per-minute limits.`,
      evidence: {
        tier,
        requests: hits.requests,
        rate_limited: hits.rateLimited,
        share: Math.round((hits.rateLimited / Math.max(1, hits.requests)) * 1000) / 1000,
        window_days: windowDays,
      },
      estimated_monthly_saving_usd: 0,
    });
  }
  const exhaustion = status.forecast.projected_exhaustion_date;
  if (status.limit_usd !== null && exhaustion !== null) {
    out.push({
      kind: "budget_exhaustion",
      title: `The ${status.period} budget runs out before the period ends`,
      detail:
        `At $${status.forecast.run_rate_usd_per_day}/day the $${status.limit_usd} budget is ` +
        `exhausted on ${exhaustion.slice(0, 10)}, before ${status.period_end.slice(0, 10)}.`,
      evidence: {
        spend_usd: status.spend_usd,
        limit_usd: status.limit_usd,
        run_rate_usd_per_day: status.forecast.run_rate_usd_per_day,
        projected_spend_usd: status.forecast.projected_spend_usd,
        projected_exhaustion_date: exhaustion,
        period_end: status.period_end,
      },
      estimated_monthly_saving_usd: 0,
    });
  }
  return out;
}
