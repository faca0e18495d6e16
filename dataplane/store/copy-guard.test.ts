import test from "ava";
import { sqlIntegerLiteral, sqlTextLiteral } from "./copy-guard.js";

test("a text literal doubles its quotes and keeps everything else as it is (standard strings)", (t) => {
  t.is(sqlTextLiteral("plain"), "'plain'");
  t.is(sqlTextLiteral("it's"), "'it''s'");
  t.is(sqlTextLiteral("x'); DROP TABLE audit_records; --"), "'x''); DROP TABLE audit_records; --'");
  t.is(sqlTextLiteral("back\\slash $fn$ \ud800"), "'back\\slash $fn$ \ud800'");
  t.is(sqlTextLiteral(""), "''");
});

test("a text literal refuses NUL, and an integer literal anything but a safe integer", (t) => {
  t.throws(() => sqlTextLiteral("nul\0here"), { message: /NUL/ });
  t.is(sqlIntegerLiteral(0), "0");
  t.is(sqlIntegerLiteral(9_007_199_254_740_991), "9007199254740991");
  for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])
    t.throws(() => sqlIntegerLiteral(bad), { message: /not an integer/ });
});
