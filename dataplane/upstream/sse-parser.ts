/** One server-sent event: its data lines joined with "\n". */
export interface SseEvent {
  data: string;
  event: string | undefined;
}

const MAX_PENDING = 4 * 1024 * 1024;

/**
 * Incremental SSE parser: push bytes as they arrive, get back each complete event as soon as its
 * blank line arrives (never waits for more). Handles LF and CRLF, comments and multi-line data.
 */
export class SseParser {
  private pending = "";
  private readonly decoder = new TextDecoder();

  push(chunk: Uint8Array): SseEvent[] {
    this.pending += this.decoder.decode(chunk, { stream: true });
    if (this.pending.length > MAX_PENDING) throw new Error("server-sent event larger than 4 MiB");
    return this.drain(false);
  }

  end(): SseEvent[] {
    this.pending += this.decoder.decode();
    return this.drain(true);
  }

  private drain(final: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    this.pending = this.pending.replace(/\r\n/g, "\n");
    let boundary = this.pending.indexOf("\n\n");
    while (boundary !== -1) {
      const block = this.pending.slice(0, boundary);
      this.pending = this.pending.slice(boundary + 2);
      const ev = parseBlock(block);
      if (ev) events.push(ev);
      boundary = this.pending.indexOf("\n\n");
    }
    if (final && this.pending.trim().length > 0) {
      const ev = parseBlock(this.pending);
      this.pending = "";
      if (ev) events.push(ev);
    }
    return events;
  }
}

function parseBlock(block: string): SseEvent | undefined {
  const data: string[] = [];
  let event: string | undefined;
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "event") event = value;
  }
  if (data.length === 0) return undefined;
  return { data: data.join("\n"), event };
}

/** Serialises one event the way it is relayed to the client. */
export function formatSseEvent(data: string, event?: string): string {
  const lines = data.split("\n").map((l) => `data: ${l}`);
  return `${event ? `event: ${event}\n` : ""}${lines.join("\n")}\n\n`;
}
