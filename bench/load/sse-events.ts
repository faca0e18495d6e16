/**
 * Reads an SSE chat stream as the benchmark's client: the content of every chunk, in order, and
 * when the first content arrived. The `data:` payloads are parsed as OpenAI chat chunks.
 */

export interface StreamReading {
  /** Content of each chunk that carried content, in arrival order. */
  contents: string[];
  /** performance.now() when the first content chunk was read; undefined if none. */
  firstContentAt: number | undefined;
  /** Whether the stream ended with `data: [DONE]`. */
  done: boolean;
}

interface ChunkShape {
  choices?: { delta?: { content?: string | null } }[];
}

export async function readChatStream(
  body: AsyncIterable<Buffer | Uint8Array>,
): Promise<StreamReading> {
  const reading: StreamReading = { contents: [], firstContentAt: undefined, done: false };
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true }).replaceAll("\r\n", "\n");
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      for (const line of block.split("\n")) {
        if (!line.startsWith("data:")) continue;
        const data = line.slice(5).trim();
        if (data === "[DONE]") {
          reading.done = true;
          continue;
        }
        const content = (JSON.parse(data) as ChunkShape).choices?.[0]?.delta?.content;
        if (typeof content !== "string" || content === "") continue;
        reading.firstContentAt ??= performance.now();
        reading.contents.push(content);
      }
    }
  }
  return reading;
}

/** True when the stream carried exactly the expected pieces, in order, and ended with [DONE]. */
export function deliveredAsSent(reading: StreamReading, expected: readonly string[]): boolean {
  return (
    reading.done &&
    reading.contents.length === expected.length &&
    reading.contents.every((content, i) => content === expected[i])
  );
}

/** True when the text as a whole arrived unchanged (chunk boundaries aside) and the stream ended. */
export function textPreserved(reading: StreamReading, expected: readonly string[]): boolean {
  return reading.done && reading.contents.join("") === expected.join("");
}
