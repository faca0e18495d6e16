import type { Broadcast } from "../../broadcast/broadcast.js";
import type { Clock } from "../../core/clock.js";
import type { GuardrailRepository } from "../../store/guardrail-repository.js";
import { overrideForKey } from "../policy/merge-policy.js";
import {
  guardrailPolicySchema,
  policyPatchSchema,
  type GuardrailPolicy,
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
 * on any replica evicts the customer here (broadcast), with a short TTL as the safety net.
 */
export class GuardConfigService {
  // While the store is unreachable the last known policy keeps applying (calls go on).
  private readonly customers: RefreshingCache<CustomerEntry>;
  private readonly keys: RefreshingCache<Record<string, unknown> | null>;

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
    const parsed = override ? policyPatchSchema.safeParse(override) : undefined;
    return {
      policy: overrideForKey(entry.policy, parsed?.success ? parsed.data : null),
      rules: entry.rules,
    };
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

  private keyOverride(keyId: string, customerId: string): Promise<Record<string, unknown> | null> {
    return this.keys.get(keyId, () => this.repo.keyOverride(keyId, customerId));
  }
}
