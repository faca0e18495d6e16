import test from "ava";
import { DEFAULT_INJECTION_THRESHOLD } from "../injection/injection-verdict.js";
import { mergePolicy, overrideForKey } from "./merge-policy.js";
import { defaultPolicy, guardrailPolicySchema, policyPatchSchema } from "./policy-schema.js";

test("the default policy: detectors on, PII redacted, confidential floor, fail closed", (t) => {
  const policy = defaultPolicy();
  t.deepEqual(policy.pii, {
    enabled: true,
    action: "redact",
    entities: {},
    restore_in_response: false,
  });
  t.is(policy.injection.threshold, DEFAULT_INJECTION_THRESHOLD);
  t.is(policy.injection.action, "block");
  t.true(policy.safety.enabled);
  t.is(policy.classification.pii_floor, "confidential");
  t.is(policy.fail_mode, "closed");
  t.false(
    "content_logging" in policy,
    "content retention is the audit's setting, not the policy's",
  );
  t.false(policyPatchSchema.safeParse({ content_logging: "redacted" }).success);
});

test("a patch changes only what it names and keeps nested siblings", (t) => {
  const policy = mergePolicy(defaultPolicy(), {
    injection: { threshold: 0.8 },
    pii: { action: "block" },
  });
  t.is(policy.injection.threshold, 0.8);
  t.true(policy.injection.enabled);
  t.is(policy.pii.action, "block");
  t.false(policy.pii.restore_in_response);
});

test("entity and category entries merge one by one, and null removes one", (t) => {
  const first = mergePolicy(defaultPolicy(), {
    pii: { entities: { US_SSN: "block", PERSON: "allow" } },
    safety: { categories: { violence: 0.3 } },
  });
  const second = mergePolicy(first, {
    pii: { entities: { PERSON: null, EMAIL_ADDRESS: "block" } },
    safety: { categories: { violence: null, hate: 0.2 } },
  });
  t.deepEqual(second.pii.entities, { US_SSN: "block", EMAIL_ADDRESS: "block" });
  t.deepEqual(second.safety.categories, { hate: 0.2 });
});

test("patches are validated with paths: thresholds in [0, 1], known entities, no unknown fields", (t) => {
  const paths = (input: unknown) => {
    const result = policyPatchSchema.safeParse(input);
    return result.success ? [] : result.error.issues.map((i) => i.path.join("."));
  };
  t.deepEqual(paths({ injection: { threshold: 1.5 } }), ["injection.threshold"]);
  t.deepEqual(paths({ safety: { threshold: -0.1 } }), ["safety.threshold"]);
  t.deepEqual(paths({ pii: { entities: { SHOE_SIZE: "block" } } }), ["pii.entities"]);
  t.deepEqual(paths({ pii: { action: "allow" } }), ["pii.action"]);
  t.deepEqual(paths({ classification: { pii_floor: "secret" } }), ["classification.pii_floor"]);
  t.is(paths({ piii: {} }).length, 1);
  t.deepEqual(paths({ fail_mode: "open", safety: { categories: { self_harm: 0.1 } } }), []);
});

test("a stored policy round-trips through the schema unchanged", (t) => {
  const policy = mergePolicy(defaultPolicy(), {
    pii: { entities: { IBAN_CODE: "block" } },
    fail_mode: "open",
  });
  t.deepEqual(guardrailPolicySchema.parse(JSON.parse(JSON.stringify(policy))), policy);
});

test("a key's override applies over the customer's policy; none leaves it as is", (t) => {
  const customer = mergePolicy(defaultPolicy(), { pii: { action: "block" } });
  t.is(overrideForKey(customer, undefined), customer);
  t.is(overrideForKey(customer, null), customer);
  const forKey = overrideForKey(customer, {
    pii: { entities: { PERSON: "allow" } },
    fail_mode: "open",
  });
  t.is(forKey.pii.action, "block");
  t.is(forKey.pii.entities.PERSON, "allow");
  t.is(forKey.fail_mode, "open");
  t.is(customer.fail_mode, "closed", "the customer's policy is not mutated");
});
