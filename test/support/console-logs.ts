// Powertools writes through the global console in dev mode (POWERTOOLS_DEV) and reads the setting
// when a logger or metrics instance is made: import this module before anything that makes one.
process.env.POWERTOOLS_DEV = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';

const METHODS = ['log', 'debug', 'info', 'warn', 'error'] as const;

export interface ConsoleCapture {
  /** Everything written so far, one entry per console call. */
  readonly lines: string[];
  /** The lines that are JSON objects, parsed (log entries and EMF metric records). */
  entries(): Record<string, unknown>[];
  restore(): void;
}

/** Collects what is written to the global console, instead of printing it. */
export function captureConsole(): ConsoleCapture {
  const lines: string[] = [];
  const spies = METHODS.map((method) =>
    jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    }),
  );
  return {
    lines,
    entries: () =>
      lines.flatMap((line) => {
        try {
          const value: unknown = JSON.parse(line);
          return typeof value === 'object' && value !== null && !Array.isArray(value)
            ? [value as Record<string, unknown>]
            : [];
        } catch {
          return [];
        }
      }),
    restore: () => spies.forEach((spy) => spy.mockRestore()),
  };
}
