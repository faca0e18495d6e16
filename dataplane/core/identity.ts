/** Who is calling: customers, their API keys, tiers and classification levels. */

export const TIERS = ["free", "pro", "business", "enterprise"] as const;
export type Tier = (typeof TIERS)[number];

/** What a key may do: see core/permissions.ts and the roles table in docs/api.md. */
export const ROLES = ["admin", "member", "compliance", "operator"] as const;
export type Role = (typeof ROLES)[number];

export const CLASSIFICATION_LEVELS = ["public", "internal", "confidential", "restricted"] as const;
export type ClassificationLevel = (typeof CLASSIFICATION_LEVELS)[number];

export function tierRank(tier: Tier): number {
  return TIERS.indexOf(tier);
}

export function classificationRank(level: ClassificationLevel): number {
  return CLASSIFICATION_LEVELS.indexOf(level);
}

export interface Customer {
  id: string;
  name: string;
  tier: Tier;
  createdAt: Date;
  updatedAt: Date;
}

export interface ApiKeyRecord {
  id: string;
  customerId: string;
  name: string;
  role: Role;
  classificationFloor: ClassificationLevel;
  /** First characters of the key, safe to show ("ev_sk_AbCd..."). */
  hint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** The authenticated caller of one request. */
export interface Caller {
  key: ApiKeyRecord;
  customer: Customer;
}

/** The customer that the bootstrap admin key belongs to; also the default `customer_id`. */
export const DEFAULT_CUSTOMER_ID = "default";
