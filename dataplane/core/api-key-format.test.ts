import test from "ava";
import {
  apiKeyHint,
  bearerToken,
  digestsEqual,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from "./api-key-format.js";

test("generated keys have the prefix, 40 base62 characters, and do not repeat", (t) => {
  const keys = new Set(Array.from({ length: 200 }, generateApiKey));
  t.is(keys.size, 200);
  for (const k of keys) {
    t.regex(k, /^ev_sk_[A-Za-z0-9]{40}$/);
    t.true(isWellFormedApiKey(k));
  }
});

test("keys of other providers and malformed keys are not well formed", (t) => {
  for (const k of [
    "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789",
    "ev_pk_abcdefghijklmnopqrstuvwxyz0123456789",
    "ev_sk_short",
    "ev_sk_abcdefghijklmnopqrstuvwxyz0123456789'--",
    "",
  ]) {
    t.false(isWellFormedApiKey(k), k);
  }
});

test("the hash is stable, hex, and does not contain the key; the hint does not reveal it", (t) => {
  const k = generateApiKey();
  const h = hashApiKey(k);
  t.is(h, hashApiKey(k));
  t.regex(h, /^[0-9a-f]{64}$/);
  t.true(digestsEqual(h, hashApiKey(k)));
  t.false(digestsEqual(h, hashApiKey(generateApiKey())));
  t.is(apiKeyHint(k).length, 13);
  t.true(k.startsWith(apiKeyHint(k).slice(0, 10)));
});

test("bearer parsing accepts the standard forms only", (t) => {
  t.is(bearerToken("Bearer abc"), "abc");
  t.is(bearerToken("bearer abc"), "abc");
  t.is(bearerToken("Basic abc"), undefined);
  t.is(bearerToken("Bearer"), undefined);
  t.is(bearerToken("Bearer a b"), undefined);
  t.is(bearerToken(undefined), undefined);
});
