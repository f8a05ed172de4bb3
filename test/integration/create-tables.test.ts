// Table creation on a DynamoDB-compatible server that takes its time, as a stock dynalite (and
// DynamoDB) does: the tables are waited for until ACTIVE, within a bound.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { createDynamoClient } from '../../lib/stores/dynamo';
import { TABLES, tableNamesWithPrefix } from '../../lib/contract/tables';
import { createTables, TableNotReady } from '../../tools/local/create-tables';

async function withDynalite(createTableMs: number, use: (endpoint: string) => Promise<void>): Promise<void> {
  const server: Server = dynalite({ createTableMs });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const names = tableNamesWithPrefix('create-tables');

test('the tables are ACTIVE when createTables returns, on a server that creates them slowly', async () => {
  await withDynalite(300, async (endpoint) => {
    const client = createDynamoClient({ endpoint });
    try {
      expect((await createTables(client, names)).sort()).toEqual(Object.keys(TABLES).sort());
      for (const TableName of Object.values(names)) {
        const { Table } = await client.send(new DescribeTableCommand({ TableName }));
        expect(Table?.TableStatus).toBe('ACTIVE');
      }
      // A second call finds them, creates nothing, and is just as ready.
      expect(await createTables(client, names)).toEqual([]);
    } finally {
      client.destroy();
    }
  });
});

test('a table that does not become ACTIVE in time is a TableNotReady naming it and its status', async () => {
  // Tables CREATING for 1.5 s against a 0.1 s bound: only a stall of over 1.4 s could let them be
  // ACTIVE before the bound is reached.
  await withDynalite(1_500, async (endpoint) => {
    const client = createDynamoClient({ endpoint });
    try {
      const failure = createTables(client, names, { readyTimeoutMs: 100 });
      await expect(failure).rejects.toBeInstanceOf(TableNotReady);
      await expect(failure).rejects.toThrow(
        /^Table create-tables-\S+ did not become ACTIVE within 0.1 s \(still CREATING\)$/,
      );
      // The next start (default bound) finds the tables and waits them out: nothing is left pending.
      expect(await createTables(client, names)).toEqual([]);
    } finally {
      client.destroy();
    }
  });
});
