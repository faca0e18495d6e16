import test from "ava";
import { DestinationPolicy, parseCidr } from "./destination-policy.js";

const strict = new DestinationPolicy([], ["203.0.113.9"]);

test("loopback, link-local (metadata), private, shared and this host's own addresses are refused by default", (t) => {
  for (const address of [
    "127.0.0.1",
    "127.9.9.9",
    "0.0.0.0",
    "::1",
    "[::1]",
    "::",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "169.254.169.254",
    "fe80::1",
    "10.0.0.5",
    "172.16.3.4",
    "192.168.1.1",
    "100.64.0.1",
    "fd00::1",
    "224.0.0.1",
    "255.255.255.255",
    "203.0.113.9",
    "not-an-address",
  ]) {
    t.false(strict.allows(address), address);
  }
});

test("public addresses are allowed", (t) => {
  for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::1111"]) {
    t.true(strict.allows(address), address);
  }
});

test("configured CIDRs widen the policy, and only as far as they reach", (t) => {
  const widened = new DestinationPolicy(["127.0.0.1", "10.20.0.0/16"], []);
  t.true(widened.allows("127.0.0.1"));
  t.false(widened.allows("127.0.0.2"));
  t.true(widened.allows("10.20.255.1"));
  t.false(widened.allows("10.21.0.1"));
  t.false(widened.allows("169.254.169.254"));
});

test("CIDR parsing refuses garbage", (t) => {
  t.deepEqual(parseCidr("10.0.0.0/8"), { address: "10.0.0.0", prefix: 8, family: "ipv4" });
  t.throws(() => parseCidr("10.0.0.0/33"));
  t.throws(() => parseCidr("example.com"));
});

test("the resolver refuses a name that resolves to a denied address (checked on the resolved address)", async (t) => {
  const err = await new Promise<Error | null>((resolve) => {
    strict.lookup("localhost", { all: true }, (e) => resolve(e));
  });
  t.is(err?.name, "DestinationRefusedError");
});
