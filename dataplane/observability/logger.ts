import { pino, type Logger } from "pino";

export type { Logger };

/**
 * Structured JSON logs. Nothing here ever receives a key, a prompt or a body; the redact paths are
 * a second line of defence for headers.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: "evident" },
      redact: {
        paths: ["authorization", "headers.authorization", "*.authorization", "key", "*.key"],
        censor: "[redacted]",
      },
    },
    destination as pino.DestinationStream | undefined,
  );
}
