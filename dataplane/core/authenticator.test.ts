import test from "ava";
import { generateApiKey, hashApiKey } from "./api-key-format.js";
import { Authenticator, type KeyDirectory } from "./authenticator.js";
import { manualClock } from "./clock.js";
import { GatewayError } from "./errors.js";
import type { ApiKeyRecord, Caller, Customer } from "./identity.js";

const customer: Customer = {
  id: "cus_1",
  name: "acme",
  tier: "pro",
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

function keyRecord(id: string, revoked = false): ApiKeyRecord {
  return {
    id,
    customerId: customer.id,
    name: id,
    role: "member",
    classificationFloor: "public",
    hint: "ev_sk_x...",
    createdAt: new Date(0),
    lastUsedAt: null,
    revokedAt: revoked ? new Date(0) : null,
  };
}

function directory(entries: Map<string, Caller>) {
  let lookups = 0;
  const dir: KeyDirectory = {
    async findByHash(hash) {
      lookups += 1;
      return entries.get(hash);
    },
  };
  return { dir, lookups: () => lookups };
}

test("a valid key authenticates, and repeat calls are served from the cache", async (t) => {
  const key = generateApiKey();
  const entries = new Map([[hashApiKey(key), { key: keyRecord("k1"), customer }]]);
  const { dir, lookups } = directory(entries);
  const used: string[] = [];
  const auth = new Authenticator({
    directory: dir,
    clock: manualClock(),
    ttlMs: 60_000,
    onUse: (id) => used.push(id),
  });
  for (let i = 0; i < 5; i++) t.is((await auth.authenticate(`Bearer ${key}`)).key.id, "k1");
  t.is(lookups(), 1);
  t.deepEqual(used, ["k1", "k1", "k1", "k1", "k1"]);
});

test("concurrent first requests share one lookup", async (t) => {
  const key = generateApiKey();
  const { dir, lookups } = directory(
    new Map([[hashApiKey(key), { key: keyRecord("k1"), customer }]]),
  );
  const auth = new Authenticator({ directory: dir, clock: manualClock(), ttlMs: 60_000 });
  await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(`Bearer ${key}`)));
  t.is(lookups(), 1);
});

test("missing, malformed, foreign, unknown and revoked keys are all invalid_api_key", async (t) => {
  const revoked = generateApiKey();
  const { dir } = directory(
    new Map([[hashApiKey(revoked), { key: keyRecord("r", true), customer }]]),
  );
  const auth = new Authenticator({ directory: dir, clock: manualClock(), ttlMs: 60_000 });
  for (const header of [
    undefined,
    "",
    "Bearer",
    "Token abc",
    "Bearer sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
    `Bearer ${generateApiKey()}`,
    `Bearer ${revoked}`,
  ]) {
    const err = await t.throwsAsync(auth.authenticate(header), { instanceOf: GatewayError });
    t.is(err?.code, "invalid_api_key");
    t.is(err?.status, 401);
  }
});

test("invalidation evicts at once; TTL expiry forces a fresh lookup", async (t) => {
  const key = generateApiKey();
  const hash = hashApiKey(key);
  const entries = new Map([[hash, { key: keyRecord("k1"), customer }]]);
  const { dir, lookups } = directory(entries);
  const clock = manualClock();
  const auth = new Authenticator({ directory: dir, clock, ttlMs: 1_000 });
  await auth.authenticate(`Bearer ${key}`);
  entries.set(hash, { key: keyRecord("k1", true), customer });
  // Still cached: the revocation has not been announced yet.
  await t.notThrowsAsync(auth.authenticate(`Bearer ${key}`));
  auth.invalidateKeyHash(hash);
  await t.throwsAsync(auth.authenticate(`Bearer ${key}`), { message: /invalid API key/ });

  entries.set(hash, { key: keyRecord("k1"), customer });
  clock.advance(5_001);
  await t.notThrowsAsync(auth.authenticate(`Bearer ${key}`));
  const before = lookups();
  clock.advance(1_001);
  await auth.authenticate(`Bearer ${key}`);
  t.is(lookups(), before + 1);
});

test("a customer invalidation evicts every key of that customer", async (t) => {
  const a = generateApiKey();
  const { dir, lookups } = directory(new Map([[hashApiKey(a), { key: keyRecord("a"), customer }]]));
  const auth = new Authenticator({ directory: dir, clock: manualClock(), ttlMs: 60_000 });
  await auth.authenticate(`Bearer ${a}`);
  auth.invalidateCustomer("cus_1");
  await auth.authenticate(`Bearer ${a}`);
  t.is(lookups(), 2);
});

test("the cache is bounded", async (t) => {
  const { dir, lookups } = directory(new Map());
  const auth = new Authenticator({
    directory: dir,
    clock: manualClock(),
    ttlMs: 60_000,
    maxEntries: 3,
  });
  const keys = Array.from({ length: 5 }, generateApiKey);
  for (const k of keys) await t.throwsAsync(auth.authenticate(`Bearer ${k}`));
  await t.throwsAsync(auth.authenticate(`Bearer ${keys[0]}`));
  t.is(lookups(), 6, "the oldest entry was evicted and looked up again");
});

test("when the store is unreachable, a known key keeps working and an unknown one gets 503", async (t) => {
  const key = generateApiKey();
  let down = false;
  const dir: KeyDirectory = {
    async findByHash(hash) {
      if (down) throw new Error("connection refused");
      return hash === hashApiKey(key) ? { key: keyRecord("k1"), customer } : undefined;
    },
  };
  const clock = manualClock();
  const auth = new Authenticator({ directory: dir, clock, ttlMs: 1_000 });
  await auth.authenticate(`Bearer ${key}`);
  down = true;
  clock.advance(5_000);
  t.is((await auth.authenticate(`Bearer ${key}`)).key.id, "k1");
  const err = await t.throwsAsync(auth.authenticate(`Bearer ${generateApiKey()}`), {
    instanceOf: GatewayError,
  });
  t.is(err?.status, 503);
});

test("a key in use past its TTL is served at once and looked up again in the background; a revocation during that lookup is not undone by it", async (t) => {
  const key = generateApiKey();
  const hash = hashApiKey(key);
  let answer: ((found: Caller | undefined) => void) | undefined;
  let lookups = 0;
  const dir: KeyDirectory = {
    findByHash() {
      lookups += 1;
      if (lookups === 1) return Promise.resolve({ key: keyRecord("k1"), customer });
      return new Promise((resolve) => (answer = resolve));
    },
  };
  const clock = manualClock();
  const auth = new Authenticator({ directory: dir, clock, ttlMs: 1_000 });
  await auth.authenticate(`Bearer ${key}`);
  clock.advance(1_500);
  // The store has not answered the refresh: the call does not wait for it.
  t.is((await auth.authenticate(`Bearer ${key}`)).key.id, "k1");
  t.is(lookups, 2);
  auth.invalidateKeyHash(hash);
  answer?.({ key: keyRecord("k1"), customer });
  await new Promise((resolve) => setImmediate(resolve));
  // The key was revoked meanwhile: the next call asks the store again instead of the old answer.
  const again = auth.authenticate(`Bearer ${key}`);
  t.is(lookups, 3);
  answer?.({ key: keyRecord("k1", true), customer });
  await t.throwsAsync(again, { message: /invalid API key/ });
  clock.advance(10_000);
  // Long unused (past two TTLs): the call waits for the store.
  const late = auth.authenticate(`Bearer ${key}`);
  t.is(lookups, 4);
  answer?.({ key: keyRecord("k1"), customer });
  t.is((await late).key.id, "k1");
});
