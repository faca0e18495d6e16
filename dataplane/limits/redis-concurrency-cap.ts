import { randomUUID } from "node:crypto";
import type { Tier } from "../core/identity.js";
import type { Logger } from "../observability/logger.js";
import type { RedisConnection } from "../store/redis-connection.js";
import {
  capExceeded,
  MemoryConcurrencyCap,
  type ConcurrencyCap,
  type ConcurrencyCaps,
} from "./concurrency-cap.js";
import { RedisScript } from "./redis-script.js";

/** Leases are kept alive while held; one left by a dead replica lapses after LEASE_MS. */
const LEASE_MS = 30_000;
const RENEW_MS = 10_000;
const TIMEOUT_MS = 500;

const ACQUIRE = new RedisScript(`
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1
`);

const key = (customerId: string) => `evident:inflight:{${customerId}}`;

/**
 * The cap shared by every replica: a sorted set of leases per customer in Redis (score: when the
 * lease lapses). Held leases are renewed every RENEW_MS. While Redis is unreachable, each replica
 * counts on its own (the per-replica cap) rather than refusing or admitting everything.
 */
export class RedisConcurrencyCap implements ConcurrencyCap {
  private readonly held = new Map<string, string>();
  private readonly local: MemoryConcurrencyCap;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisConnection,
    private readonly caps: ConcurrencyCaps,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.local = new MemoryConcurrencyCap(caps);
    this.timer = setInterval(() => void this.renew(), RENEW_MS);
    this.timer.unref();
  }

  async acquire(customerId: string, tier: Tier): Promise<string> {
    let granted: unknown;
    const lease = `r:${randomUUID()}`;
    try {
      granted = await ACQUIRE.run(
        this.redis,
        [key(customerId)],
        [this.now(), this.caps[tier], lease, LEASE_MS],
        { timeoutMs: TIMEOUT_MS },
      );
    } catch {
      this.logger.warn({ customer_id: customerId }, "concurrency cap counted locally (no Redis)");
      return this.local.acquire(customerId, tier);
    }
    if (Number(granted) !== 1) throw capExceeded(tier, this.caps[tier]);
    this.held.set(lease, customerId);
    return lease;
  }

  async release(customerId: string, lease: string): Promise<void> {
    if (!this.held.delete(lease)) return this.local.release(customerId, lease);
    await this.redis.client.zRem(key(customerId), lease).catch(() => undefined);
  }

  private async renew(): Promise<void> {
    const until = this.now() + LEASE_MS;
    await Promise.all(
      [...this.held].map(([lease, customerId]) =>
        this.redis.client
          .zAdd(key(customerId), { score: until, value: lease }, { XX: true })
          .catch(() => undefined),
      ),
    );
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }
}
