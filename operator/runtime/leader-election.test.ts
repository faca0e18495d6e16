import test from "ava";
import { pino } from "pino";
import { KubeApiStore } from "../../test/fakes/kube-apiserver-store.js";
import { MemoryKubeClient } from "../../test/fakes/kube-apiserver-memory-client.js";
import type { KubeClient } from "../kube/kube-client.js";
import { ALL_RESOURCES, LEASES } from "../kube/resources.js";
import { isRecord } from "../kube/types.js";
import { ManualClock } from "./clock.js";
import { LeaderElector } from "./leader-election.js";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function elector(
  kube: KubeClient,
  clock: ManualClock,
  identity: string,
  state: { leading: boolean },
): LeaderElector {
  return new LeaderElector({
    kube,
    clock,
    logger: pino({ level: "silent" }),
    namespace: "ops",
    leaseName: "op",
    identity,
    leaseDurationMs: 15_000,
    retryPeriodMs: 2_000,
    onStartedLeading: () => (state.leading = true),
    onStoppedLeading: () => (state.leading = false),
  });
}

function holder(store: KubeApiStore): unknown {
  const spec = store.get(LEASES, "ops", "op").spec;
  return isRecord(spec) ? spec.holderIdentity : undefined;
}

test("a replica whose lease expired loses it to another, and steps down when it sees the new holder (in-memory API double)", async (t) => {
  const store = new KubeApiStore(ALL_RESOURCES);
  const kube = new MemoryKubeClient(store);
  const clockA = new ManualClock(Date.UTC(2026, 0, 1));
  const clockB = new ManualClock(Date.UTC(2026, 0, 1));
  const a = { leading: false };
  const b = { leading: false };
  elector(kube, clockA, "a", a).start();
  clockA.advance(0);
  await flush();
  t.true(a.leading);

  elector(kube, clockB, "b", b).start();
  clockB.advance(14_000); // a's lease is still live
  await flush();
  t.false(b.leading);
  clockB.advance(2_000); // 16 s after a's last renewal: expired
  await flush();
  t.true(b.leading);
  t.is(holder(store), "b");

  clockA.advance(2_000); // a wakes up, sees b's fresh lease, stops
  await flush();
  t.false(a.leading);
  t.is(holder(store), "b");
});

/** Holds every PATCH while blocked, until open() is called. */
class GatedKube extends MemoryKubeClient {
  blocked = false;
  private waiting: (() => void)[] = [];

  open(): void {
    this.blocked = false;
    this.waiting.splice(0).forEach((resume) => resume());
  }

  get pending(): number {
    return this.waiting.length;
  }

  override async patch(...args: Parameters<KubeClient["patch"]>): ReturnType<KubeClient["patch"]> {
    if (this.blocked) await new Promise<void>((resume) => this.waiting.push(resume));
    return super.patch(...args);
  }
}

test("release waits for a renewal in flight, so the lease really ends up empty (in-memory API double)", async (t) => {
  const store = new KubeApiStore(ALL_RESOURCES);
  const kube = new GatedKube(store);
  const clock = new ManualClock();
  const state = { leading: false };
  const a = elector(kube, clock, "a", state);
  a.start();
  clock.advance(0); // creates the lease
  await flush();
  t.true(state.leading);
  kube.blocked = true;
  clock.advance(2_000); // a renewal starts and blocks in PATCH
  await flush();
  t.is(kube.pending, 1);
  const released = a.release();
  kube.open(); // the renewal lands (holder "a" again), then the release empties the lease
  await released;
  t.false(state.leading);
  t.is(holder(store), undefined);
});
