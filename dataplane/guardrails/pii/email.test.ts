import test from "ava";
import { findEmails } from "./email.js";

const values = (text: string): string[] => findEmails(text).map((m) => text.slice(m.start, m.end));

test("finds plain, tagged and subdomain addresses with exact spans", (t) => {
  t.deepEqual(values("Mail jane.doe+news@mail.example.co.uk today."), [
    "jane.doe+news@mail.example.co.uk",
  ]);
  t.deepEqual(values("<a.b@c.io>, x_y@d-e.org"), ["a.b@c.io", "x_y@d-e.org"]);
  t.deepEqual(values("Write to ADMIN@EXAMPLE.COM."), ["ADMIN@EXAMPLE.COM"]);
});

test("ignores handles, decorators and addresses without a real domain", (t) => {
  t.deepEqual(values("ping @alice on slack, use @Injectable() and user@localhost"), []);
  t.deepEqual(values("npm i @types/node; git@github"), []);
  t.deepEqual(values("a@b.c is too short a TLD, a..b@x.com has a double dot"), []);
});

/** findEmails as first written: a regex test per character of the local part and the domain. */
function referenceFindEmails(text: string): { start: number; end: number }[] {
  const local = /[A-Za-z0-9._%+\-'!#$&*=?^`{|}~]/;
  const domainChar = /[A-Za-z0-9.-]/;
  const label = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
  const tld = /^[A-Za-z]{2,24}$/;
  const found: { start: number; end: number }[] = [];
  let at = text.indexOf("@");
  let lastEnd = 0;
  while (at >= 0) {
    let start = at;
    while (start > Math.max(lastEnd, at - 64) && local.test(text[start - 1] ?? "")) start--;
    while (start < at && /[.'`{|}~]/.test(text[start] ?? "")) start++;
    let end = at + 1;
    const limit = Math.min(text.length, at + 254);
    while (end < limit && domainChar.test(text[end] ?? "")) end++;
    while (end > at + 1 && /[.-]/.test(text[end - 1] ?? "")) end--;
    const localPart = text.slice(start, at);
    const labels = text.slice(at + 1, end).split(".");
    const valid =
      labels.length >= 2 &&
      tld.test(labels[labels.length - 1] ?? "") &&
      labels.every((l) => label.test(l));
    if (localPart.length > 0 && !localPart.endsWith(".") && !localPart.includes("..") && valid) {
      found.push({ start, end });
      lastEnd = end;
    }
    at = text.indexOf("@", at + 1);
  }
  return found;
}

test("findEmails finds what the per-character regex tests found", (t) => {
  const pieces = [
    "a",
    "Bo",
    "9",
    ".",
    "-",
    "_",
    "@",
    "@",
    "com",
    "x.org",
    " ",
    "é",
    "ß",
    "😀",
    "'",
    "{",
    "~",
    "..",
    "\u0130",
    "\u212a",
  ];
  let seed = 21;
  for (let k = 0; k < 30_000; k++) {
    let text = "";
    const count = 1 + (k % 24);
    for (let p = 0; p < count; p++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      text += pieces[(seed >>> 16) % pieces.length];
    }
    const got = findEmails(text).map((m) => ({ start: m.start, end: m.end }));
    if (JSON.stringify(got) !== JSON.stringify(referenceFindEmails(text)))
      t.fail(JSON.stringify(text));
  }
  t.pass();
});
