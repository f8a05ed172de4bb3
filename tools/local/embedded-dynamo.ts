import { once } from 'node:events';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { ChangeStream, streamChanges, type ChangeStreamOptions } from './change-stream';
import { IndexLag, lagIndexes, type IndexLagOptions } from './index-lag';
import { holdCalls, WRITE_OPERATIONS, type CallHold, type HeldCall } from './held-calls';

export type { HeldCall as HeldWrite } from './held-calls';

export interface EmbeddedDynamo {
  endpoint: string;
  port: number;
  /** Ends every write hold, applies every deferred index change, then stops the server. */
  close(): Promise<void>;
  /** Makes every deferred index change visible now (a test's final, settled comparison). */
  settleIndexes(): Promise<void>;
  /** The index lag of the writes from now on, when the server lags its indexes (tools/local/index-lag.ts). */
  setIndexLagMs(maxMs: number): void;
  /** The tables' change streams, when asked for: what the local stack's stream consumers read. */
  stream?: ChangeStream;
}

export interface EmbeddedDynamoOptions {
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Keep the data on disk in this folder; in memory when absent. */
  dataDir?: string;
  /**
   * Global secondary index propagation: each write's index changes become visible to Query/Scan on the
   * index only after a delay drawn in [0, maxMs] (random, per write), never out of order for one item
   * (an item's later change never shows before its earlier one; different items can overtake each other).
   * Reads of the table itself see every write at once. See tools/local/index-lag.ts.
   */
  indexLag?: IndexLagOptions;
  /** Writes that reach the table late, even after their client gave up, as on AWS: see held-calls.ts. */
  holdWrites?: (write: HeldCall) => number | Promise<void> | undefined;
  /**
   * Record every applied write as DynamoDB Streams would (tools/local/change-stream.ts), for the
   * tables a consumer subscribes to: the change stream of lib/contract/tables.ts, emulated.
   */
  stream?: ChangeStreamOptions;
  /**
   * AWS's clock (epoch ms), which each reply's `Date` header gives, to the whole second, as it is
   * sent: the machine's by default; a test's world passes its own, so a tool that reads AWS's
   * time from the replies (tools/shared/aws-time.ts) reads the world's.
   */
  clock?: () => number;
}

const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** dynalite: a DynamoDB-compatible server, in process, that any DynamoDB client can talk to. */
export async function startEmbeddedDynamo(options: EmbeddedDynamoOptions): Promise<EmbeddedDynamo> {
  const host = options.host ?? '127.0.0.1';
  const lag = options.indexLag ? new IndexLag(options.indexLag) : undefined;
  // dynalite keeps this very object as its store's options: the index lag finds its server by it.
  const dynaliteOptions = {
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.dataDir ? { path: options.dataDir } : {}),
  };
  if (lag) lagIndexes(dynaliteOptions, lag);
  const stream = options.stream ? new ChangeStream(options.stream) : undefined;
  if (stream) streamChanges(dynaliteOptions, stream);
  const server = dynalite(dynaliteOptions);
  dateReplies(server, options.clock ?? Date.now);
  const { holdWrites } = options;
  const writesOnly: CallHold = (call) => (WRITE_OPERATIONS.has(call.operation) ? holdWrites?.(call) : undefined);
  const holds = holdWrites ? holdCalls(server, writesOnly) : undefined;
  // Node's default 5 s keep-alive timer can fire while the process is busy, closing a pooled socket
  // just as a client reuses it. A client that never retries (the limiter's) would turn that into a
  // failed request; a timeout longer than any stall makes the race practically impossible.
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.listen(options.port, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${port}`,
    port,
    settleIndexes: async () => lag?.settle(),
    setIndexLagMs: (maxMs) => {
      if (lag === undefined) throw new Error('This embedded server was started without an index lag');
      lag.setMaxMs(maxMs);
    },
    ...(stream ? { stream } : {}),
    close: async () => {
      // Writes sent are applied, and their index changes too, before the store closes (and, with
      // dataDir, so that a restart finds them).
      await holds?.release();
      await lag?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      });
    },
  };
}

/**
 * Sets each reply's `Date` from `clock` as its head is written. Node's own is cached and renewed by
 * a timer at each second, which a busy process runs late, sending the last second after a tick.
 */
function dateReplies(server: Server, clock: () => number): void {
  server.prependListener('request', (_request, response: ServerResponse) => {
    const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
    response.writeHead = ((...args: unknown[]) => {
      response.setHeader('Date', new Date(clock()).toUTCString());
      return writeHead(...args);
    }) as ServerResponse['writeHead'];
  });
}
