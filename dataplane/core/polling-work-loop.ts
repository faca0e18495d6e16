/**
 * The background loop of a leased worker (batches, RAG ingestion): it takes one unit of work at a
 * time, sleeps `pollMs` when there was none, and wakes early when nudged or stopped.
 */
export class PollingWorkLoop {
  private stopped = false;
  private loopDone: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  /**
   * `takeWork` does one unit of work and says whether there was any; a throw is passed to
   * `onError` and counts as no work.
   */
  constructor(
    private readonly takeWork: () => Promise<boolean>,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  get stopping(): boolean {
    return this.stopped;
  }

  start(): void {
    this.loopDone ??= this.loop();
  }

  /** Stops taking work; the unit in hand finishes first. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loopDone;
  }

  /** Looks for work now instead of at the next poll. */
  nudge(): void {
    this.wake?.();
  }

  /** Sleeps up to `ms`; a nudge or stop ends it early. Returns at once once stopping. */
  sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let worked = false;
      try {
        worked = await this.takeWork();
      } catch (err) {
        this.onError(err);
      }
      if (!worked) await this.sleep(this.pollMs);
    }
  }
}

/**
 * Keeps a lease renewed every third of `leaseMs` (at least every 250 ms) until `stop()`. `renew`
 * answers false when the lease was lost (taken over by another worker); `lost` then stays true.
 */
export function renewLease(leaseMs: number, renew: () => Promise<boolean>) {
  let lost = false;
  const timer = setInterval(
    () => {
      void renew()
        .then((ok) => (lost ||= !ok))
        .catch(() => undefined);
    },
    Math.max(250, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return {
    get lost() {
      return lost;
    },
    stop: () => clearInterval(timer),
  };
}
