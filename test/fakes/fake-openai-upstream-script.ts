/**
 * Per-request behaviours of the fake OpenAI-compatible upstream (a test double, see
 * fake-openai-upstream.ts). Tests queue behaviours; each request takes the next one, or the default.
 */

export type HangUp = "before-headers" | "mid-stream";

export interface Behaviour {
  /** Answer with this status and an OpenAI-style error envelope (or `json` when given). */
  status?: number;
  /** Wait this long before sending headers. */
  delayMs?: number;
  /** Destroy the connection before any header, or after half of the body / stream. */
  hangUp?: HangUp;
  /** Streamed content pieces, one SSE chunk each (also the text of a JSON answer). */
  chunks?: string[];
  /** Without `chunks`: how many generated pieces (`tok0 `, `tok1 `, ...) to send. */
  chunkCount?: number;
  /** Delay between two SSE chunks, in ms. */
  paceMs?: number;
  /** false: no `usage` in JSON answers and no usage chunk in streams. */
  usage?: boolean;
  /** A custom JSON body, sent as is (with `status`, default 200). */
  json?: unknown;
  /** A raw body sent as is with this content type (with `status`, default 200). */
  raw?: { contentType: string; body: string };
  /** Extra response headers (e.g. Retry-After on a 429). */
  headers?: Record<string, string>;
  /** With n > 1: the pieces of each choice (index 0 defaults to `chunks`). */
  choices?: string[][];
  /** Tool calls the model makes: each with its name and argument fragments (one chunk each). */
  toolCalls?: { name: string; arguments: string[] }[];
  /** A refusal instead of content, in pieces. */
  refusal?: string[];
}

export interface FakeScript {
  /** Queue a behaviour for the next request that arrives (first in, first out). */
  next(behaviour: Behaviour): FakeScript;
  /** Replace the behaviour used when the queue is empty. */
  setDefault(behaviour: Behaviour): void;
  /** How many queued behaviours are still unused. */
  pending(): number;
}

export class BehaviourQueue implements FakeScript {
  private readonly queue: Behaviour[] = [];

  constructor(
    private fallback: Behaviour,
    private readonly byModel: Readonly<Record<string, Behaviour>>,
  ) {}

  next(behaviour: Behaviour): FakeScript {
    this.queue.push(behaviour);
    return this;
  }

  setDefault(behaviour: Behaviour): void {
    this.fallback = behaviour;
  }

  pending(): number {
    return this.queue.length;
  }

  /** The behaviour for one request: the queued one, else the model's, else the default. */
  take(model: string | undefined): Behaviour {
    const queued = this.queue.shift();
    if (queued) return queued;
    const forModel = model === undefined ? undefined : this.byModel[model];
    return forModel ? { ...this.fallback, ...forModel } : this.fallback;
  }
}

/** The content pieces a behaviour streams. */
export function contentPieces(behaviour: Behaviour, defaultCount: number): string[] {
  if (behaviour.chunks) return behaviour.chunks;
  const count = behaviour.chunkCount ?? defaultCount;
  return Array.from({ length: count }, (_, i) => `tok${i} `);
}
