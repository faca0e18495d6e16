import test from "ava";
import { TurnBatch } from "./turn-batch.js";

test("jobs queued in one turn run together, in order, after the turn's synchronous work", async (t) => {
  const batch = new TurnBatch();
  const ran: string[] = [];
  const a = batch.run(() => {
    ran.push("a");
    return 1;
  });
  const b = batch.run(() => {
    ran.push("b");
    return "two";
  });
  ran.push("sync");
  t.deepEqual(await Promise.all([a, b]), [1, "two"]);
  t.deepEqual(ran, ["sync", "a", "b"]);
});

test("a job's exception rejects only its own caller; the others still run", async (t) => {
  const batch = new TurnBatch();
  const first = batch.run(() => {
    throw new Error("refused");
  });
  const second = batch.run(() => "served");
  await t.throwsAsync(first, { message: "refused" });
  t.is(await second, "served");
});

test("a job queued while a batch runs goes to the next turn, and the batch keeps working after", async (t) => {
  const batch = new TurnBatch();
  const order: string[] = [];
  let inner: Promise<string> | undefined;
  await batch.run(() => {
    order.push("outer");
    inner = batch.run(() => {
      order.push("inner");
      return "inner done";
    });
  });
  t.is(await inner, "inner done");
  t.is(await batch.run(() => "later"), "later");
  t.deepEqual(order, ["outer", "inner"]);
});
