import type { RoutableModel } from "../routing-types.js";
import type { RouteConfig, RouteTarget } from "./route-config.js";

export interface TargetPick {
  /** The model the call goes to. */
  chosen: RoutableModel;
  /** The route target that was picked (its `model` is the A/B arm). */
  arm: string;
  /** Models to try, in order, if every target of `chosen` fails, with their route target names. */
  fallbacks: { model: RoutableModel; arm: string }[];
}

interface Candidate {
  target: RouteTarget;
  model: RoutableModel;
}

/**
 * Picks a route's target model by its strategy, among the targets that are routable now
 * (`resolve` returns a model with at least one target):
 * - weighted: random by weight (weight 0 is never picked); the other weighted targets follow as
 *   fallbacks, heaviest first;
 * - ab: random by weight like weighted, but without fallbacks, so each call stays in its arm;
 * - fallback: the first routable target in the route's order; the rest are fallbacks;
 * - cheapest: the lowest price (input + output per 1k tokens), ties in route order; the rest
 *   follow cheapest first.
 * Undefined when no target can take the call. `random` returns a number in [0, 1).
 */
export function pickTarget(
  route: RouteConfig,
  resolve: (model: string) => RoutableModel | undefined,
  random: () => number,
): TargetPick | undefined {
  const candidates: Candidate[] = [];
  for (const target of route.targets) {
    const model = resolve(target.model);
    if (model && model.targets.length > 0) candidates.push({ target, model });
  }
  switch (route.strategy) {
    case "weighted":
    case "ab": {
      const weighted = candidates.filter((c) => c.target.weight > 0);
      const picked = byWeight(weighted, random);
      if (!picked) return undefined;
      const rest =
        route.strategy === "ab"
          ? []
          : weighted.filter((c) => c !== picked).sort((a, b) => b.target.weight - a.target.weight);
      return result(picked, rest);
    }
    case "fallback": {
      const [first, ...rest] = candidates;
      return first ? result(first, rest) : undefined;
    }
    case "cheapest": {
      const sorted = [...candidates].sort((a, b) => price(a.model) - price(b.model));
      const [first, ...rest] = sorted;
      return first ? result(first, rest) : undefined;
    }
  }
}

function byWeight(candidates: Candidate[], random: () => number): Candidate | undefined {
  const total = candidates.reduce((sum, c) => sum + c.target.weight, 0);
  if (total <= 0) return undefined;
  let point = random() * total;
  for (const c of candidates) {
    point -= c.target.weight;
    if (point < 0) return c;
  }
  return candidates[candidates.length - 1];
}

function price(model: RoutableModel): number {
  return model.pricing.inputPer1k + model.pricing.outputPer1k;
}

function result(picked: Candidate, rest: Candidate[]): TargetPick {
  const fallbacks: TargetPick["fallbacks"] = [];
  for (const c of rest) {
    if (c.model === picked.model || fallbacks.some((f) => f.model === c.model)) continue;
    fallbacks.push({ model: c.model, arm: c.target.model });
  }
  return { chosen: picked.model, arm: picked.target.model, fallbacks };
}
