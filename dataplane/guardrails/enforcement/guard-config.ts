import type { Broadcast } from "../../broadcast/broadcast.js";
import type { Clock } from "../../core/clock.js";
import type { GuardrailRepository } from "../../store/guardrail-repository.js";
import { overrideForKey } from "../policy/merge-policy.js";
import {
  guardrailPolicySchema,
  policyPatchSchema,
  type GuardrailPolicy,
  type PolicyPatch,
} from "../policy/policy-schema.js";
import { compileRule, type CompiledRule } from "../rules/compile-rule.js";
import { ruleDefinitionSchema } from "../rules/rule-definition.js";
import { RefreshingCache } from "../../store/refreshing-cache.js";

export const GUARDRAILS_CHANNEL = "evident.guardrails.changed";
const TTL_MS = 10_000;

export interface GuardConfig {
  policy: GuardrailPolicy;
  rules: CompiledRule[];
}

interface CustomerEntry {
  policy: GuardrailPolicy;
  rules: CompiledRule[];
}

/**
 * The policy and compiled rules a call runs under. Compiled once per change and cached; a change
 * on any replica evicts the customer here (broadcast), with a short TTL as the safety net. A key's
 * override is validated when it is loaded and merged once per (policy, override) pair, not per call.
 */
export class GuardConfigService {
  // While the store is unreachable the last known policy keeps applying (calls go on).
  private readonly customers: RefreshingCache<CustomerEntry>;
  private readonly keys: RefreshingCache<PolicyPatch | null>;
  /** The config per customer entry and key override (both replaced when they change). */
  private readonly merged = new WeakMap<CustomerEntry, WeakMap<PolicyPatch, GuardConfig>>();

  constructor(
    private readonly repo: GuardrailRepository,
    private readonly broadcast: Broadcast,
    clock: Clock,
  ) {
    this.customers = new RefreshingCache(clock, TTL_MS);
    this.keys = new RefreshingCache(clock, TTL_MS);
  }

  async start(): Promise<() => Promise<void>> {
    return this.broadcast.subscribe(GUARDRAILS_CHANNEL, (message) => this.evict(message));
  }

  async forCall(customerId: string, keyId: string): Promise<GuardConfig> {
    const entry = await this.customer(customerId);
    const override = await this.keyOverride(keyId, customerId);
    if (override === null) return entry;
    let byOverride = this.merged.get(entry);
    if (byOverride === undefined) this.merged.set(entry, (byOverride = new WeakMap()));
    let config = byOverride.get(override);
    if (config === undefined) {
      config = { policy: overrideForKey(entry.policy, override), rules: entry.rules };
      byOverride.set(override, config);
    }
    return config;
  }

  async policy(customerId: string): Promise<GuardrailPolicy> {
    return (await this.customer(customerId)).policy;
  }

  /** Forget a customer's (or key's) cached config here and on every replica. */
  async changed(customerIdOrKey: string): Promise<void> {
    this.evict(customerIdOrKey);
    await this.broadcast.publish(GUARDRAILS_CHANNEL, customerIdOrKey).catch(() => undefined);
  }

  private evict(id: string): void {
    this.customers.invalidate(id);
    this.keys.invalidate(id);
  }

  private customer(customerId: string): Promise<CustomerEntry> {
    return this.customers.get(customerId, async () => {
      const [stored, storedRules] = await Promise.all([
        this.repo.policy(customerId),
        this.repo.rules(customerId),
      ]);
      const policy = guardrailPolicySchema.parse(stored ?? {});
      const rules: CompiledRule[] = [];
      for (const r of storedRules) {
        const def = ruleDefinitionSchema.safeParse(r.definition);
        if (def.success && def.data.enabled) rules.push(compileRule(def.data, { id: r.id }));
      }
      return { policy, rules };
    });
  }

  /**
   * The key's stored override (only if the key is this customer's), validated once when loaded
   * (an invalid one counts as none).
   */
  private keyOverride(keyId: string, customerId: string): Promise<PolicyPatch | null> {
    return this.keys.get(keyId, async () => {
      const stored = await this.repo.keyOverride(keyId, customerId);
      if (!stored) return null;
      const parsed = policyPatchSchema.safeParse(stored);
      return parsed.success ? parsed.data : null;
    });
  }
}
