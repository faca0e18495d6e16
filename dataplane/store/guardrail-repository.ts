import type { Queryable } from "./database.js";

export interface StoredRule {
  id: string;
  customerId: string;
  definition: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

interface RuleRow {
  id: string;
  customer_id: string;
  definition: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const toRule = (r: RuleRow): StoredRule => ({
  id: r.id,
  customerId: r.customer_id,
  definition: r.definition,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Guardrail policies (per customer, per-key overrides) and custom rules. */
export class GuardrailRepository {
  constructor(private readonly db: Queryable) {}

  async policy(customerId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.db.query<{ policy: Record<string, unknown> }>(
      "SELECT policy FROM guardrail_policies WHERE customer_id = $1",
      [customerId],
    );
    return row?.policy;
  }

  async savePolicy(customerId: string, policy: object): Promise<void> {
    await this.db.query(
      `INSERT INTO guardrail_policies (customer_id, policy, updated_at) VALUES ($1, $2::jsonb, now())
       ON CONFLICT (customer_id) DO UPDATE SET policy = $2::jsonb, updated_at = now()`,
      [customerId, JSON.stringify(policy)],
    );
  }

  async keyOverride(keyId: string, customerId: string): Promise<Record<string, unknown> | null> {
    const [row] = await this.db.query<{ guardrail_override: Record<string, unknown> | null }>(
      "SELECT guardrail_override FROM api_keys WHERE id = $1 AND customer_id = $2",
      [keyId, customerId],
    );
    return row?.guardrail_override ?? null;
  }

  /** Sets a key's override; scoped to the customer. Returns false when no such key. */
  async saveKeyOverride(
    keyId: string,
    customerId: string,
    override: object | null,
  ): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      "UPDATE api_keys SET guardrail_override = $3::jsonb WHERE id = $1 AND customer_id = $2 RETURNING id",
      [keyId, customerId, override === null ? null : JSON.stringify(override)],
    );
    return rows.length > 0;
  }

  async rules(customerId: string): Promise<StoredRule[]> {
    const rows = await this.db.query<RuleRow>(
      "SELECT * FROM guardrail_rules WHERE customer_id = $1 ORDER BY created_at, id",
      [customerId],
    );
    return rows.map(toRule);
  }

  /** One rule, scoped to a customer unless customerId is null (admin). */
  async rule(id: string, customerId: string | null): Promise<StoredRule | undefined> {
    const [row] = await this.db.query<RuleRow>(
      "SELECT * FROM guardrail_rules WHERE id = $1 AND ($2::text IS NULL OR customer_id = $2)",
      [id, customerId],
    );
    return row ? toRule(row) : undefined;
  }

  async createRule(id: string, customerId: string, definition: object): Promise<StoredRule> {
    const [row] = await this.db.query<RuleRow>(
      "INSERT INTO guardrail_rules (id, customer_id, definition) VALUES ($1, $2, $3::jsonb) RETURNING *",
      [id, customerId, JSON.stringify(definition)],
    );
    return toRule(row as RuleRow);
  }

  async updateRule(
    id: string,
    customerId: string,
    definition: object,
  ): Promise<StoredRule | undefined> {
    const [row] = await this.db.query<RuleRow>(
      `UPDATE guardrail_rules SET definition = $3::jsonb, updated_at = now()
        WHERE id = $1 AND customer_id = $2 RETURNING *`,
      [id, customerId, JSON.stringify(definition)],
    );
    return row ? toRule(row) : undefined;
  }

  async deleteRule(id: string, customerId: string | null): Promise<StoredRule | undefined> {
    const [row] = await this.db.query<RuleRow>(
      "DELETE FROM guardrail_rules WHERE id = $1 AND ($2::text IS NULL OR customer_id = $2) RETURNING *",
      [id, customerId],
    );
    return row ? toRule(row) : undefined;
  }
}
