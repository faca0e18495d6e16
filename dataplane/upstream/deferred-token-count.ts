import { countTextTokens } from "./usage.js";

/** Text held back from counting stays bounded: past this many characters it is counted at once. */
const MAX_HELD_CHARS = 64 * 1024;

/**
 * Tokens of streamed text, each piece counted on its own (as if counted when it arrived), but only
 * when the total is asked for: a streamed answer's usage normally comes from the backend, and the
 * tokenizer on every piece was 2% of an SSE call.
 */
export class DeferredTokenCount {
  private counted = 0;
  private held: string[] = [];
  private heldChars = 0;

  add(text: string): void {
    this.held.push(text);
    this.heldChars += text.length;
    if (this.heldChars > MAX_HELD_CHARS) this.countHeld();
  }

  get total(): number {
    this.countHeld();
    return this.counted;
  }

  private countHeld(): void {
    for (const text of this.held) this.counted += countTextTokens(text);
    this.held = [];
    this.heldChars = 0;
  }
}
