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

export const GUARDRAILS_CHANNEL = "evident.guardrails.changed";
const TTL_MS = 10_000;

export interface GuardConfig {
  policy: GuardrailPolicy;
  rules: CompiledRule[];
}

interface CustomerEntry {
  policy: GuardrailPolicy;
  rules: CompiledRule[];
  until: number;
}

/**
 * The policy and compiled rules a call runs under. Compiled once per change and cached; a change
 * on any replica evicts the customer here (broadcast), with a short TTL as the safety net.
 */
export class GuardConfigService {
  private readonly customers = new Map<string, CustomerEntry>();
  private readonly keys = new Map<
    string,
    { override: Record<string, unknown> | null; until: number }
  >();

  constructor(
    private readonly repo: GuardrailRepository,
    private readonly broadcast: Broadcast,
    private readonly clock: Clock,
  ) {}

  async start(): Promise<() => Promise<void>> {
    return this.broadcast.subscribe(GUARDRAILS_CHANNEL, (message) => this.evict(message));
  }

  async forCall(customerId: string, keyId: string): Promise<GuardConfig> {
    const entry = await this.customer(customerId);
    const override = await this.keyOverride(keyId);
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
    this.customers.delete(id);
    this.keys.delete(id);
  }

  private async customer(customerId: string): Promise<CustomerEntry> {
    const now = this.clock.now();
    const hit = this.customers.get(customerId);
    if (hit && hit.until > now) return hit;
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
    const entry = { policy, rules, until: now + TTL_MS };
    this.customers.set(customerId, entry);
    return entry;
  }

  private async keyOverride(keyId: string): Promise<Record<string, unknown> | null> {
    const now = this.clock.now();
    const hit = this.keys.get(keyId);
    if (hit && hit.until > now) return hit.override;
    const override = await this.repo.keyOverride(keyId);
    this.keys.set(keyId, { override, until: now + TTL_MS });
    return override;
  }
}
