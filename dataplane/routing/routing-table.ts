import type { RouteConfig } from "./routes/route-config.js";
import type { RouteDecision, RoutableModel, Target } from "./routing-types.js";
import type { TargetHealth } from "./target-health.js";

/**
 * Where each model's rotation among its targets stands. One per process, outliving the tables:
 * a cursor of the table itself went back to 0 at every rebuild (every deployment or route
 * change) and moved with every other model's calls, so a model's first target got more than its
 * share.
 */
export class TargetRotation {
  private readonly next = new Map<string, number>();

  /** Where the rotation starts for one call counted under `key`; the next call starts one further. */
  turn(key: string): number {
    const n = this.next.get(key) ?? 0;
    this.next.set(key, n + 1);
    return n;
  }

  /** Forgets the keys not in `keys` (models no longer routable). */
  retain(keys: ReadonlySet<string>): void {
    for (const key of this.next.keys()) if (!keys.has(key)) this.next.delete(key);
  }
}

/** The rotation key of a customer's own model: apart from every other customer's and the shared one. */
function customerRotationKey(customerId: string, name: string): string {
  return `${customerId}\u0000${name}`;
}

/** Where a model's calls are counted: its own key (a customer's model), else its name (shared). */
function rotationKeyOf(model: RoutableModel): string {
  return model.rotationKey ?? model.name;
}

/**
 * An immutable snapshot of what is routable: global models (running deployments) and each
 * customer's backends and smart routes. Rebuilt and swapped whole on every change.
 */
export class RoutingTable {
  private readonly byName = new Map<string, RoutableModel>();
  private readonly byCustomer = new Map<string, Map<string, RoutableModel>>();

  constructor(
    readonly globalModels: readonly RoutableModel[],
    customerModels: ReadonlyMap<string, readonly RoutableModel[]>,
    private readonly customerRoutes: ReadonlyMap<string, readonly RouteConfig[]> = new Map(),
    /** Each model's rotation, kept across rebuilds (RoutingTableHolder passes its own). */
    private readonly rotation = new TargetRotation(),
  ) {
    index(this.byName, globalModels);
    for (const [customerId, models] of customerModels) {
      const map = new Map<string, RoutableModel>();
      const keyed = models.map((m) => ({
        ...m,
        rotationKey: customerRotationKey(customerId, m.name),
      }));
      index(map, keyed);
      this.byCustomer.set(customerId, map);
    }
  }

  /** Every rotation key a call through this table can count under (for `TargetRotation.retain`). */
  rotationKeys(): Set<string> {
    const keys = new Set(this.globalModels.map(rotationKeyOf));
    for (const map of this.byCustomer.values())
      for (const m of map.values()) keys.add(rotationKeyOf(m));
    return keys;
  }

  /** The model a caller means by `name` (a name or an alias), with its customer's backends. */
  resolve(name: string, customerId: string): RoutableModel | undefined {
    const own = this.byCustomer.get(customerId)?.get(name);
    const global = this.byName.get(name);
    if (own && global && own !== global) {
      // The customer's own backend serves a registered model too: both carry its traffic.
      return {
        ...global,
        targets: [...global.targets, ...own.targets],
        // Counted with the customer's own model, not with the shared one other customers call.
        rotationKey: rotationKeyOf(own),
      };
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
    const start = this.rotation.turn(rotationKeyOf(model));
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
