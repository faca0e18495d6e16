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
