import test from "ava";
import { quantityValue, sameQuantity } from "./quantity.js";

test("quantities compare by value: 0.5 = 500m, 1Gi = 1024Mi, 2 = '2' = 2000m, 1e3 = 1k", (t) => {
  t.true(sameQuantity("0.5", "500m"));
  t.true(sameQuantity("1Gi", "1024Mi"));
  t.true(sameQuantity(2, "2000m"));
  t.true(sameQuantity("1e3", "1k"));
  t.false(sameQuantity("1G", "1Gi"));
  t.false(sameQuantity("1", "not-a-quantity"));
  t.is(quantityValue("1.5Gi"), 1.5 * 1024 ** 3);
  t.is(quantityValue("abc"), undefined);
});
