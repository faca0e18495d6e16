import test from "ava";
import { findIpAddresses, isValidIpv6 } from "./ip-address.js";

const values = (text: string): string[] =>
  findIpAddresses(text).map((m) => text.slice(m.start, m.end));

test("finds IPv4 addresses, also at the end of a sentence", (t) => {
  t.deepEqual(values("blocked from 41.173.96.26 and 10.0.0.1."), ["41.173.96.26", "10.0.0.1"]);
});

test("finds full, compressed and IPv4-tailed IPv6 addresses", (t) => {
  t.deepEqual(values("from 2001:0db8:85a3:0000:0000:8a2e:0370:7334 today"), [
    "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
  ]);
  t.deepEqual(values("host 2001:db8::1 and fe80::1:2"), ["2001:db8::1", "fe80::1:2"]);
  t.deepEqual(values("mapped ::ffff:192.0.2.128."), ["::ffff:192.0.2.128"]);
});

test("rejects version strings, out-of-range octets, dates, times and MAC addresses", (t) => {
  t.deepEqual(values("upgrade to v1.2.3.4 or version 10.0.19041.1"), []);
  t.deepEqual(values("256.1.1.1 and 1.2.3 and 1.2.3.4.5"), []);
  t.deepEqual(values("at 12:30:45 on 2024.01.02, mac 00:1a:2b:3c:4d:5e"), []);
  t.false(isValidIpv6("1::2::3"));
  t.false(isValidIpv6("12345::1"));
});
