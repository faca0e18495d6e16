import test from "ava";
import { findPhoneNumbers } from "./phone.js";

const values = (text: string): string[] =>
  findPhoneNumbers(text).map((m) => text.slice(m.start, m.end));

test("finds international and North American numbers without context", (t) => {
  t.deepEqual(values("They're not answering at 780-999-2181"), ["780-999-2181"]);
  t.deepEqual(values("Reach HQ on +44 20 7946 0958 or (212) 555-0187."), [
    "+44 20 7946 0958",
    "(212) 555-0187",
  ]);
  t.deepEqual(values("Office +41 (0)96 471 07 95"), ["+41 (0)96 471 07 95"]);
  t.deepEqual(values("US: 1-800-555-0199 x204"), ["1-800-555-0199 x204"]);
});

test("European and short layouts count after a phone word", (t) => {
  t.deepEqual(values("Mobile: 0490 75 40 81"), ["0490 75 40 81"]);
  t.deepEqual(values("Tel. 03.93.92.16.85"), ["03.93.92.16.85"]);
  t.deepEqual(values("please call me on 467 3395"), ["467 3395"]);
  t.deepEqual(values("Fax: 9498777106"), ["9498777106"]);
});

test("digit runs without a phone word, or after another number word, are not phones", (t) => {
  t.deepEqual(values("We shipped 1 490 750 units"), []);
  t.deepEqual(values("phone case order 1234567 arrived"), []);
  t.deepEqual(values("my driver's license number is 6940579"), []);
});

test("dates, times, decimals and IPs are not phone numbers even after a phone word", (t) => {
  t.deepEqual(values("phone call on 2024-05-17 at 12.30"), []);
  t.deepEqual(values("call on 17.05.2024, rate 3.14159265"), []);
  t.deepEqual(values("phone server 192.168.100.200"), []);
});

test("numbers in the forms people write them are found without a phone word", (t) => {
  const forms = [
    "+1 (555) 234-5678",
    "(555)234-5678",
    "555.234.5678 x12",
    "+1 555 234 5678 ext 12",
    "(555) 234-5678 #12",
    "001-555-234-5678x5555",
    "+44(0)20 7946 0958",
    "(+44) 20 7946 0958",
    "0044 20 7946 0958",
    "+33 (0)1 23 45 67 89",
    "+49 (0) 30 1234 5678",
    "+7 495 123-45-67",
    "+91 98765 43210",
    "020 7946 0958",
    "(02) 9876 5432",
    "(030) 12345678",
    "0490 75 40 81",
    "03.93.92.16.85",
  ];
  for (const form of forms) t.deepEqual(values(`Send it to ${form} by Monday.`), [form], form);
  t.deepEqual(values("tel:+15552345678"), ["+15552345678"]);
});

test("grouped numbers that are not phones stay unmatched", (t) => {
  for (const text of [
    "Order 0490 75 40 81 shipped",
    "ISBN 978-3-16-148410-0",
    "We sold 1 234 567 units in 2023",
    "ticket 0123 4567 8901 2345",
    "version 10.2.3.4 and room 0203",
  ])
    t.deepEqual(values(text), [], text);
});
