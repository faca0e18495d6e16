import { bearerToken, digestsEqual, hashApiKey, isWellFormedApiKey } from "./api-key-format.js";
import type { Clock } from "./clock.js";
import { GatewayError } from "./errors.js";
import type { ApiKeyRecord, Caller, Customer } from "./identity.js";

/** Where the authenticator looks keys up; the store implements it. */
export interface KeyDirectory {
  findByHash(keyHash: string): Promise<{ key: ApiKeyRecord; customer: Customer } | undefined>;
}

interface CacheEntry {
  caller: Caller | undefined;
  keyHash: string;
  expiresAt: number;
}

export interface AuthenticatorOptions {
  directory: KeyDirectory;
  clock: Clock;
  /** How long a found key stays cached. */
  ttlMs: number;
  /** How long an unknown key stays cached as unknown (limits lookups by key-guessers). */
  negativeTtlMs?: number;
  maxEntries?: number;
  /** Called for each authenticated request (to record last use off the hot path). */
  onUse?: (keyId: string) => void;
}

const INVALID = "invalid API key: provide 'Authorization: Bearer ev_sk_...' with a valid key";

/**
 * Authenticates bearer keys. Looks up each key once, then serves it from a bounded cache until
 * its TTL ends or an invalidation (revocation, tier change; also from other replicas) evicts it;
 * a known key past its TTL is refreshed in the background while it keeps being served.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly pending = new Map<string, Promise<Caller | undefined>>();
  private readonly negativeTtlMs: number;
  private readonly maxEntries: number;
  /** Bumped by every invalidation: a lookup that began before one does not cache its answer. */
  private epoch = 0;

  constructor(private readonly options: AuthenticatorOptions) {
    this.negativeTtlMs = options.negativeTtlMs ?? Math.min(options.ttlMs, 5_000);
    this.maxEntries = options.maxEntries ?? 50_000;
  }

  async authenticate(authorization: string | undefined): Promise<Caller> {
    const token = bearerToken(authorization);
    if (token === undefined || !isWellFormedApiKey(token)) {
      throw new GatewayError("invalid_api_key", INVALID);
    }
    const keyHash = hashApiKey(token);
    const caller = await this.lookup(keyHash);
    if (!caller || caller.key.revokedAt !== null) {
      throw new GatewayError("invalid_api_key", INVALID);
    }
    this.options.onUse?.(caller.key.id);
    return caller;
  }

  /** Forget one key (revoked, or created after a miss was cached). */
  invalidateKeyHash(keyHash: string): void {
    this.epoch += 1;
    this.pending.delete(keyHash);
    this.cache.delete(keyHash);
  }

  /** Forget every cached key of a customer (tier or name changed). */
  invalidateCustomer(customerId: string): void {
    this.epoch += 1;
    this.pending.clear();
    for (const [hash, entry] of this.cache) {
      if (entry.caller?.customer.id === customerId) this.cache.delete(hash);
    }
  }

  clear(): void {
    this.epoch += 1;
    this.pending.clear();
    this.cache.clear();
  }

  private async lookup(keyHash: string): Promise<Caller | undefined> {
    const now = this.options.clock.now();
    const hit = this.cache.get(keyHash);
    if (hit && digestsEqual(hit.keyHash, keyHash)) {
      if (hit.expiresAt > now) return hit.caller;
      // A known key past its TTL is served while it is looked up again in the background (for
      // at most one more TTL): a key in steady use never waits for the store. Revocations do not
      // wait for the TTL, they are pushed (invalidateKeyHash).
      if (hit.caller && now < hit.expiresAt + this.options.ttlMs) {
        this.fetch(keyHash).catch(() => undefined);
        return hit.caller;
      }
    }
    return this.fetch(keyHash);
  }

  /** Looks the key up in the store (one lookup per key at a time) and caches the answer. */
  private fetch(keyHash: string): Promise<Caller | undefined> {
    const inFlight = this.pending.get(keyHash);
    if (inFlight) return inFlight;
    const epoch = this.epoch;
    const promise = this.options.directory
      .findByHash(keyHash)
      .then((found) => {
        const ttl = found ? this.options.ttlMs : this.negativeTtlMs;
        if (epoch === this.epoch) this.remember(keyHash, found, this.options.clock.now() + ttl);
        return found;
      })
      .catch((err: unknown) => {
        // The store is unreachable: a key known before keeps working (revocations were already
        // pushed to every replica); an unknown one cannot be checked.
        const stale = this.cache.get(keyHash);
        if (stale?.caller) return stale.caller;
        throw new GatewayError(
          "store_unavailable",
          "cannot check API keys right now; retry later",
          {
            headers: { "retry-after": "5" },
            cause: err,
          },
        );
      })
      .finally(() => {
        if (this.pending.get(keyHash) === promise) this.pending.delete(keyHash);
      });
    this.pending.set(keyHash, promise);
    return promise;
  }

  private remember(keyHash: string, caller: Caller | undefined, expiresAt: number): void {
    if (this.cache.size >= this.maxEntries) {
      // Evict the oldest insertion (Map keeps insertion order).
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(keyHash, { caller, keyHash, expiresAt });
  }
}
