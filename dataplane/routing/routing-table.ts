import type { RouteConfig } from "./routes/route-config.js";
import type { RouteDecision, RoutableModel, Target } from "./routing-types.js";
import type { TargetHealth } from "./target-health.js";

/**
 * An immutable snapshot of what is routable: global models (running deployments) and each
 * customer's backends and smart routes. Rebuilt and swapped whole on every change.
 */
export class RoutingTable {
  private readonly byName = new Map<string, RoutableModel>();
  private readonly byCustomer = new Map<string, Map<string, RoutableModel>>();
  private cursor = 0;

  constructor(
    readonly globalModels: readonly RoutableModel[],
    customerModels: ReadonlyMap<string, readonly RoutableModel[]>,
    private readonly customerRoutes: ReadonlyMap<string, readonly RouteConfig[]> = new Map(),
  ) {
    index(this.byName, globalModels);
    for (const [customerId, models] of customerModels) {
      const map = new Map<string, RoutableModel>();
      index(map, models);
      this.byCustomer.set(customerId, map);
    }
  }

  /** The model a caller means by `name` (a name or an alias), with its customer's backends. */
  resolve(name: string, customerId: string): RoutableModel | undefined {
    const own = this.byCustomer.get(customerId)?.get(name);
    const global = this.byName.get(name);
    if (own && global && own !== global) {
      // The customer's own backend serves a registered model too: both carry its traffic.
      return { ...global, targets: [...global.targets, ...own.targets] };
    }
    return own ?? global;
  }

  /** A customer's enabled smart routes, oldest first. */
  routesOf(customerId: string): readonly RouteConfig[] {
    return this.customerRoutes.get(customerId) ?? [];
  }

  /** Every model a customer can address. */
  list(customerId: string): RoutableModel[] {
    const out = new Map<string, RoutableModel>();
    for (const m of this.globalModels) out.set(m.name, m);
    for (const m of this.byCustomer.get(customerId)?.values() ?? []) {
      if (!out.has(m.name)) out.set(m.name, m);
    }
    return [...out.values()];
  }

  /**
   * Orders a model's targets for one call: healthy ones first, the least loaded first and ties
   * rotated, so several deployments share the load; cooling-down ones last, soonest-back first.
   */
  decide(model: RoutableModel, health: TargetHealth): RouteDecision {
    const start = this.cursor++;
    const n = model.targets.length;
    const rotated = model.targets.map((_, i) => model.targets[(start + i) % n] as Target);
    const healthy = rotated.filter((t) => health.isHealthy(t.id));
    const cooling = rotated.filter((t) => !health.isHealthy(t.id));
    healthy.sort((a, b) => health.inFlight(a.id) - health.inFlight(b.id));
    cooling.sort((a, b) => health.coolUntil(a.id) - health.coolUntil(b.id));
    return { model, targets: [...healthy, ...cooling] };
  }
}

function index(map: Map<string, RoutableModel>, models: readonly RoutableModel[]): void {
  for (const m of models) map.set(m.name, m);
  for (const m of models) for (const alias of m.aliases) if (!map.has(alias)) map.set(alias, m);
}
