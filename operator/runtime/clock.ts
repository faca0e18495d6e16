/** Time as the operator sees it; tests pass a manual clock. */
export interface Clock {
  now(): number;
  /** Runs fn after ms; returns a cancel function. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/** A clock that only moves when told to; timers fire in due order during advance(). */
export class ManualClock implements Clock {
  private current: number;
  private timers: { due: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const timer = { due: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  pendingTimers(): number {
    return this.timers.length;
  }

  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      this.timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.due > target) break;
      this.timers.shift();
      this.current = next.due;
      next.fn();
    }
    this.current = target;
  }
}
