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

/** dynalite: a DynamoDB-compatible server, in process, that any DynamoDB client can talk to. */
export async function startEmbeddedDynamo(options: EmbeddedDynamoOptions): Promise<EmbeddedDynamo> {
  const host = options.host ?? '127.0.0.1';
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.dataDir ? { path: options.dataDir } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
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
