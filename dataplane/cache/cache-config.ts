import { z } from "zod";
import type { Broadcast } from "../broadcast/broadcast.js";
import type { Clock } from "../core/clock.js";
import { safeText } from "../prompts/prompt-schemas.js";
import type { CacheRepository } from "../store/cache-repository.js";
import { RefreshingCache } from "../store/refreshing-cache.js";

export const CACHE_CHANNEL = "evident.cache.config.changed";

const modelName = safeText(256).pipe(
  z
    .string()
    .min(1)
    .refine(
      (s) => ![...s].some((ch) => (ch.codePointAt(0) ?? 0) < 0x20 || ch === "\u007f"),
      "must not contain control characters",
    ),
);

/** A customer's cache settings; every field has a default (the cache is off until enabled). */
export const cacheConfigSchema = z
  .object({
    enabled: z.boolean().default(false),
    /** exact: identical requests only; semantic: also the nearest earlier prompt above the threshold. */
    mode: z.enum(["exact", "semantic"]).default("exact"),
    ttl_seconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .default(3_600),
    similarity_threshold: z.number().min(0.5).max(1).default(0.95),
    /** The model that embeds prompts for the semantic cache, called through this gateway's routing. */
    embedding_model: modelName.nullable().default(null),
    /** Cache calls classified confidential or restricted too (off: they are never stored or served). */
    cache_confidential: z.boolean().default(false),
  })
  .meta({ id: "CacheConfig" });

export type CacheConfig = z.output<typeof cacheConfigSchema>;

export const cacheConfigUpdateSchema = z
  .strictObject({
    enabled: z.boolean().optional(),
    mode: z.enum(["exact", "semantic"]).optional(),
    ttl_seconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .optional(),
    similarity_threshold: z.number().min(0.5).max(1).optional(),
    embedding_model: modelName.nullable().optional(),
    cache_confidential: z.boolean().optional(),
  })
  .meta({ id: "CacheConfigUpdate" });

export const DEFAULT_CACHE_CONFIG: CacheConfig = cacheConfigSchema.parse({});

/** Per-replica copy of customers' cache settings; a change anywhere evicts it everywhere. */
export class CacheConfigService {
  private readonly cache: RefreshingCache<CacheConfig>;

  constructor(
    private readonly repo: CacheRepository,
    private readonly broadcast: Broadcast,
    clock: Clock,
  ) {
    this.cache = new RefreshingCache(clock, 10_000);
  }

  async start(): Promise<() => Promise<void>> {
    return this.broadcast.subscribe(CACHE_CHANNEL, (id) => this.cache.invalidate(id));
  }

  get(customerId: string): Promise<CacheConfig> {
    return this.cache.get(customerId, async () => {
      const stored = await this.repo.config(customerId);
      const parsed = cacheConfigSchema.safeParse(stored ?? {});
      return parsed.success ? parsed.data : DEFAULT_CACHE_CONFIG;
    });
  }

  async set(customerId: string, config: CacheConfig): Promise<void> {
    await this.repo.setConfig(customerId, config);
    this.cache.invalidate(customerId);
    await this.broadcast.publish(CACHE_CHANNEL, customerId).catch(() => undefined);
  }
}
