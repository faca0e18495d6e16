import type { ApiKeyRepository } from "./api-key-repository.js";

/**
 * Records each key's last use without a write per request: ids are collected in memory and
 * written in one statement per interval. Losing a partial interval on a crash is acceptable.
 */
export class KeyUsageRecorder {
  private seen = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  record(keyId: string): void {
    this.seen.add(keyId);
  }

  async flush(): Promise<void> {
    if (this.seen.size === 0) return;
    const ids = [...this.seen];
    this.seen = new Set();
    await this.keys.touch(ids, new Date()).catch(this.onError);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }
}
