import type { RealtimeSession } from "./realtime-session.js";

/** Open realtime sessions of this replica, per customer: the concurrency cap and shutdown. */
export class RealtimeSessions {
  private readonly byCustomer = new Map<string, Set<RealtimeSession>>();

  count(customerId: string): number {
    return this.byCustomer.get(customerId)?.size ?? 0;
  }

  total(): number {
    let n = 0;
    for (const set of this.byCustomer.values()) n += set.size;
    return n;
  }

  add(customerId: string, session: RealtimeSession): void {
    const set = this.byCustomer.get(customerId) ?? new Set();
    set.add(session);
    this.byCustomer.set(customerId, set);
  }

  remove(customerId: string, session: RealtimeSession): void {
    const set = this.byCustomer.get(customerId);
    if (!set) return;
    set.delete(session);
    if (set.size === 0) this.byCustomer.delete(customerId);
  }

  /** Closes every session (the gateway is shutting down). */
  closeAll(code: number, reason: string): void {
    for (const set of this.byCustomer.values()) for (const s of set) s.close(code, reason);
  }
}
