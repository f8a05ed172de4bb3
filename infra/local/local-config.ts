// Where the local stack lives: its table names and its DynamoDB endpoint. `npm start` and the
// admin command both read them here, so the admin command finds the stack that npm start made.

import { optionalEnv } from '../../lib/aws/env';
import { tableNamesWithPrefix } from './create-tables';

/** Table names of the local stack; the admin command uses them too unless told otherwise. */
export const LOCAL_TABLES = tableNamesWithPrefix('store-orders-local');
export const DEFAULT_DYNAMODB_PORT = 8000;
export const DEFAULT_API_PORT = 3000;
export const DEFAULT_HOST = '127.0.0.1';

/** A TCP port from the command line or the environment, or an Error naming where it came from. */
export function portNumber(text: string, name: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65535)) throw new Error(`${name} must be a port number from 0 to 65535, got "${text}"`);
  return port;
}

/**
 * A DynamoDB endpoint URL, checked: an http(s) URL with a host and nothing after it. An Error
 * says what is wrong, e.g. that `127.0.0.1:8000` needs its `http://`.
 */
export function dynamoEndpoint(text: string, name: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  // `localhost:8000` parses as a URL with the scheme "localhost:".
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    throw new Error(`${name} must be an http:// or https:// URL such as http://127.0.0.1:8000, got "${text}"`);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new Error(`${name} must be a server address with no path, such as http://127.0.0.1:8000, got "${text}"`);
  }
  return url.origin;
}

/** The local stack's DynamoDB endpoint: DYNAMODB_ENDPOINT, else 127.0.0.1 on DYNAMODB_PORT (8000). */
export function localDynamoEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  const endpoint = optionalEnv('DYNAMODB_ENDPOINT', env);
  if (endpoint !== undefined) return dynamoEndpoint(endpoint, 'DYNAMODB_ENDPOINT');
  const port = portNumber(optionalEnv('DYNAMODB_PORT', env) ?? String(DEFAULT_DYNAMODB_PORT), 'DYNAMODB_PORT');
  return `http://${DEFAULT_HOST}:${port}`;
}
