// Where the local stack lives: its table names and its DynamoDB endpoint. `npm start` and the
// admin command both read them here, so the admin command finds the stack that npm start made.

import { join } from 'node:path';
import { optionalEnv } from '../../lib/commons/env';
import { tableNamesWithPrefix } from '../../lib/contract/tables';
import { shownInput } from './shown-input';

/** Table names of the local stack; the admin command uses them too unless told otherwise. */
export const LOCAL_TABLES = tableNamesWithPrefix('store-orders-local');
export const DEFAULT_DYNAMODB_PORT = 8000;
export const DEFAULT_API_PORT = 3000;
export const DEFAULT_HOST = '127.0.0.1';
/** What the local stack keeps between runs (its built reference pages, its state file), in this checkout. */
export const CACHE_DIR = join(process.cwd(), 'node_modules/.cache/store-orders-api');

/** A TCP port from the command line or the environment, or an Error naming where it came from. */
export function portNumber(text: string, name: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65535)) throw new Error(`${name} must be a port number from 0 to 65535, got "${shownInput(text)}"`);
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
    throw new Error(
      `${name} must be an http:// or https:// URL such as http://127.0.0.1:8000, got "${shownInput(text)}"`,
    );
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new Error(
      `${name} must be a server address with no path, such as http://127.0.0.1:8000, got "${shownInput(text)}"`,
    );
  }
  return url.origin;
}

/**
 * A port from its command-line option when given (even empty: then refused as the option's mistake),
 * else from its environment variable, else the default. An Error names where a bad value came from.
 */
export function portSetting(
  envName: 'PORT' | 'DYNAMODB_PORT',
  env: NodeJS.ProcessEnv,
  option?: { name: string; value: string | undefined },
): number {
  if (option?.value !== undefined) return portNumber(option.value, option.name);
  const fallback = envName === 'PORT' ? DEFAULT_API_PORT : DEFAULT_DYNAMODB_PORT;
  return portNumber(optionalEnv(envName, env) ?? String(fallback), envName);
}

/** The local stack's DynamoDB endpoint: DYNAMODB_ENDPOINT, else 127.0.0.1 on DYNAMODB_PORT (8000). */
export function localDynamoEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  const endpoint = optionalEnv('DYNAMODB_ENDPOINT', env);
  if (endpoint !== undefined) return dynamoEndpoint(endpoint, 'DYNAMODB_ENDPOINT');
  return `http://${DEFAULT_HOST}:${portSetting('DYNAMODB_PORT', env)}`;
}
