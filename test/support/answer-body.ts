/** What a test compares of an inference answer's body (JSON or server-sent events). */

/** The error code of an answer in our (OpenAI) error envelope. */
export function errorCodeOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

/**
 * The generated text of a JSON completion or an SSE stream (ids differ per request); for
 * embeddings, `data:<count>`.
 */
export function generatedContentOf(text: string): string {
  if (text.includes("data: ")) {
    return text
      .split("\n\n")
      .filter((e) => e.startsWith("data: {"))
      .map((e) => {
        const chunk = JSON.parse(e.slice(6)) as { choices?: { delta?: { content?: string } }[] };
        return chunk.choices?.[0]?.delta?.content ?? "";
      })
      .join("");
  }
  try {
    const json = JSON.parse(text) as {
      choices?: { message?: { content?: string } }[];
      data?: unknown[];
    };
    return json.choices?.[0]?.message?.content ?? `data:${json.data?.length ?? "-"}`;
  } catch {
    return "";
  }
}
