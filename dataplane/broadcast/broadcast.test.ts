import test from "ava";
import { POSTGRES_URL, REDIS_URL } from "../../test/support/databases.js";
import { connectRedis } from "../store/redis-connection.js";
import { memoryBroadcast, type Broadcast } from "./broadcast.js";
import { postgresBroadcast } from "./postgres-broadcast.js";
import { redisBroadcast } from "./redis-broadcast.js";

function nextMessage(
  b: Broadcast,
  channel: string,
): Promise<{ message: string; stop: () => Promise<void> }> {
  return new Promise((resolve) => {
    let stop: () => Promise<void> = async () => undefined;
    void b
      .subscribe(channel, (message) => resolve({ message, stop }))
      .then((s) => {
        stop = s;
      });
  });
}

async function deliversBetweenTwoInstances(
  t: import("ava").ExecutionContext,
  open: () => Promise<Broadcast>,
) {
  const a = await open();
  const b = await open();
  try {
    const channel = `evident.test.${Math.random().toString(36).slice(2)}`;
    const received = nextMessage(b, channel);
    // Subscribing is asynchronous on the servers; publish until it lands.
    let got: { message: string } | undefined;
    // A publish still in flight when the connection closes is rejected; that is not the test's.
    const timer = setInterval(
      () => void a.publish(channel, '{"keyHash":"x"}').catch(() => undefined),
      50,
    );
    try {
      got = await received;
    } finally {
      clearInterval(timer);
    }
    t.is(got.message, '{"keyHash":"x"}');
  } finally {
    await a.close();
    await b.close();
  }
}

test("memory: a published message reaches subscribers of that channel only", async (t) => {
  const b = memoryBroadcast();
  const seen: string[] = [];
  await b.subscribe("one", (m) => seen.push(`one:${m}`));
  const stop = await b.subscribe("two", (m) => seen.push(`two:${m}`));
  await b.publish("one", "hello");
  await stop();
  await b.publish("two", "ignored");
  await new Promise((r) => setTimeout(r, 10));
  t.deepEqual(seen, ["one:hello"]);
});

if (REDIS_URL) {
  const url = REDIS_URL;
  test("redis: messages cross between two connections (two replicas)", (t) =>
    deliversBetweenTwoInstances(t, async () => {
      const connection = await connectRedis(url);
      const b = await redisBroadcast(connection);
      return {
        ...b,
        async close() {
          await b.close();
          await connection.close();
        },
      };
    }));
} else {
  test.skip("redis broadcast (set REDIS_URL to run)", () => undefined);
}

if (POSTGRES_URL) {
  const url = POSTGRES_URL;
  test("postgres: LISTEN/NOTIFY crosses between two connections (two replicas)", (t) =>
    deliversBetweenTwoInstances(t, () => postgresBroadcast(url)));
} else {
  test.skip("postgres broadcast (set DATABASE_URL to run)", () => undefined);
}

test("memory: a listener that throws or rejects is reported and the others still get the message", async (t) => {
  const errors: string[] = [];
  const b = memoryBroadcast((err) => errors.push(String(err)));
  const seen: string[] = [];
  await b.subscribe("c", () => {
    throw new Error("sync");
  });
  await b.subscribe("c", async () => {
    throw new Error("async");
  });
  await b.subscribe("c", (m) => seen.push(m));
  await b.publish("c", "hello");
  await new Promise((r) => setImmediate(r));
  t.deepEqual(seen, ["hello"]);
  t.deepEqual(errors.sort(), ["Error: async", "Error: sync"]);
});
