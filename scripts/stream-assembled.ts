/**
 * What a client assembles from a relayed event stream: each choice's content, and every event
 * that carries no choices (an error, the usage chunk, `[DONE]`) as sent. Two relays that give
 * the same assembled answer differ at most in where the text is cut into chunks.
 */
export interface AssembledStream {
  content: Record<number, string>;
  other: string[];
}

export function assembled(out: string): AssembledStream {
  const content: Record<number, string> = {};
  const other: string[] = [];
  for (const block of out.split("\n\n")) {
    const data = block.startsWith("data: ") ? block.slice("data: ".length) : undefined;
    if (data === undefined || data === "[DONE]") {
      if (block !== "") other.push(block);
      continue;
    }
    const json = JSON.parse(data) as {
      choices?: { index: number; delta?: { content?: unknown } }[];
    };
    if (!Array.isArray(json.choices) || json.choices.length === 0) other.push(block);
    for (const choice of json.choices ?? []) {
      const text = choice.delta?.content;
      if (typeof text === "string") content[choice.index] = (content[choice.index] ?? "") + text;
    }
  }
  return { content, other };
}
