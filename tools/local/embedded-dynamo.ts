import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

export interface EmbeddedDynamo {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

export interface EmbeddedDynamoOptions {
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Keep the data on disk in this folder; in memory when absent. */
  dataDir?: string;
}

const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** dynalite: a DynamoDB-compatible server, in process, that any DynamoDB client can talk to. */
export async function startEmbeddedDynamo(options: EmbeddedDynamoOptions): Promise<EmbeddedDynamo> {
  const host = options.host ?? '127.0.0.1';
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.dataDir ? { path: options.dataDir } : {}),
  });
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
