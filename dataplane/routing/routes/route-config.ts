export const ROUTE_STRATEGIES = ["weighted", "fallback", "cheapest", "ab"] as const;
export type RouteStrategy = (typeof ROUTE_STRATEGIES)[number];

export interface RouteTarget {
  /** A model name or alias the customer can address. */
  model: string;
  /** 0-100; used by the weighted and ab strategies, ignored by fallback and cheapest. */
  weight: number;
}

export interface RouteMatch {
  /** Matches when the caller's requested model (as written: name or alias) equals this. */
  model: string;
  /** Every entry must equal a request header (names compared case-insensitively). */
  headers: Record<string, string>;
}

/** A customer's smart-routing rule: calls that match it go to one of its target models. */
export interface RouteConfig {
  id: string;
  customerId: string;
  name: string;
  match: RouteMatch;
  strategy: RouteStrategy;
  targets: RouteTarget[];
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}
