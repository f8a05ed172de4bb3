declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}

/** dynalite's storage layer, shared by its actions: tools/local/index-lag.ts wraps two of its functions. */
declare module 'dynalite/db' {
  export type Done = (error?: Error | null) => void;
  export interface SubDb {
    put(key: string, value: unknown, done: Done): void;
    del(key: string, done: Done): void;
  }
  export interface IndexDescription {
    IndexName: string;
  }
  export interface TableDescription {
    TableName: string;
    TableStatus?: string;
    CreationDateTime?: number;
    KeySchema?: { AttributeName: string; KeyType: string }[];
    GlobalSecondaryIndexes?: IndexDescription[];
  }
  export interface Store {
    /** The options given to dynalite(), the same object for the store's whole life. */
    options: object;
    getIndexDb(indexType: 'Local' | 'Global', tableName: string, indexName: string): SubDb;
    /** With checkStatus, a table being created or deleted is an error too. */
    getTable(name: string, checkStatus: boolean, done: (error: Error | null, table?: TableDescription) => void): void;
  }
  export type Item = Record<string, unknown>;
  export interface IndexActions {
    puts: { index: string; key: string; item: Item }[];
    deletes: { index: string; key: string }[];
  }
  const db: {
    updateIndexes(
      store: Store,
      table: TableDescription,
      existingItem: Item | undefined,
      item: Item | null,
      done: Done,
    ): void;
    getIndexActions(
      indexes: IndexDescription[],
      existingItem: Item | undefined,
      item: Item | null,
      table: TableDescription,
    ): IndexActions;
    createKey(item: Item, table: TableDescription): string;
    queryTable(store: Store, table: TableDescription, data: { IndexName?: string }, ...rest: unknown[]): void;
  };
  export default db;
}
