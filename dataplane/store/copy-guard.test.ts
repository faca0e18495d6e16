import test from "ava";
import { sqlIntegerLiteral, sqlTextLiteral } from "./copy-guard.js";

test("a text literal is an escape string: quotes and backslashes doubled, everything else as it is", (t) => {
  t.is(sqlTextLiteral("plain"), "E'plain'");
  t.is(sqlTextLiteral("it's"), "E'it''s'");
  t.is(
    sqlTextLiteral("x'); DROP TABLE audit_records; --"),
    "E'x''); DROP TABLE audit_records; --'",
  );
  t.is(
    sqlTextLiteral("x\\'); DROP TABLE audit_records; --"),
    "E'x\\\\''); DROP TABLE audit_records; --'",
  );
  t.is(sqlTextLiteral("back\\slash $fn$ \ud800"), "E'back\\\\slash $fn$ \ud800'");
  t.is(sqlTextLiteral(""), "E''");
});

test("a text literal refuses NUL, and an integer literal anything but a safe integer", (t) => {
  t.throws(() => sqlTextLiteral("nul\0here"), { message: /NUL/ });
  t.is(sqlIntegerLiteral(0), "0");
  t.is(sqlIntegerLiteral(9_007_199_254_740_991), "9007199254740991");
  for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])
    t.throws(() => sqlIntegerLiteral(bad), { message: /not an integer/ });
});
