import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableNames } from '../lib/aws/tables';

export interface SentCommand {
  /** e.g. `UpdateItem`, without the SDK's `Command` suffix. */
  command: string;
  table: string | undefined;
  startedAt: number;
  endedAt: number;
}

/**
 * Records every command sent through the client, once per command (the `initialize` step runs
 * before retries), with when it started and ended, so overlapping calls show as parallel.
 */
export function logCommands(doc: DynamoDBDocumentClient): { take(): SentCommand[] } {
  let log: SentCommand[] = [];
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const startedAt = performance.now();
      try {
        return await next(args);
      } finally {
        const input = args.input as { TableName?: unknown };
        log.push({
          command: String(context.commandName ?? 'unknown').replace(/Command$/, ''),
          table: typeof input.TableName === 'string' ? input.TableName : undefined,
          startedAt,
          endedAt: performance.now(),
        });
      }
    },
    { step: 'initialize', name: 'benchCommandLog' },
  );
  return {
    take: () => {
      const taken = log;
      log = [];
      return taken;
    },
  };
}

/** Commands grouped into waves: each wave's calls were in flight together. */
export function waves(commands: readonly SentCommand[]): SentCommand[][] {
  const sorted = [...commands].sort((a, b) => a.startedAt - b.startedAt);
  const out: SentCommand[][] = [];
  let wave: SentCommand[] = [];
  let waveEnd = -Infinity;
  for (const c of sorted) {
    if (wave.length > 0 && c.startedAt >= waveEnd) {
      out.push(wave);
      wave = [];
    }
    wave.push(c);
    waveEnd = Math.max(waveEnd, c.endedAt);
  }
  if (wave.length > 0) out.push(wave);
  return out;
}

/** `UpdateItem(rateLimits) ‖ UpdateItem(rateLimits) → UpdateItem(orders)`: the critical path. */
export function describePath(commands: readonly SentCommand[], tables: TableNames): string {
  const label = (table: string | undefined) =>
    (Object.entries(tables).find(([, name]) => name === table)?.[0] ?? table ?? '?');
  return waves(commands)
    .map((wave) => wave.map((c) => `${c.command}(${label(c.table)})`).join(' ‖ '))
    .join(' → ');
}
