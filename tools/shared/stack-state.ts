// Where the running local stacks are: `npm start` writes a state file once it listens (its pid, API
// URL, DynamoDB endpoint and table names) and removes it when it exits. `npm stop` stops the stacks
// listed; the admin and smoke commands find the one running, on whatever ports it chose, and the
// smoke command makes its keys in the DynamoDB of the stack at its URL and nowhere else.
// The files are in this checkout (node_modules/.cache), readable by this machine's users only.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { optionalEnv } from '../../lib/commons/env';
import { TABLES, type TableNames } from '../../lib/contract/tables';
import { field, UsageError } from './errors';
import { CACHE_DIR } from './local-config';

export interface StackDynamo {
  endpoint: string;
  tables: TableNames;
  /** The emulated webhook delivery queue's URL, served over SQS's protocol (the admin command's replay and test send to it). */
  webhookQueueUrl?: string;
}

export interface StackState extends StackDynamo {
  pid: number;
  /** The API's base URL, e.g. http://127.0.0.1:3000/v1. */
  apiUrl: string;
}

/** LOCAL_STACK_STATE_DIR is for tests, which run stacks of their own beside the user's. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return optionalEnv('LOCAL_STACK_STATE_DIR', env) ?? join(CACHE_DIR, 'stacks');
}

/** One file per API port: a stack on a port replaces the record a killed one left there. */
const stateFile = (apiUrl: string, env: NodeJS.ProcessEnv) => join(stateDir(env), `${new URL(apiUrl).port}.json`);

/** Records a stack until this process exits (any way but SIGKILL) or the returned function removes it. */
export function recordStack(state: StackState, env: NodeJS.ProcessEnv = process.env): () => void {
  const file = stateFile(state.apiUrl, env);
  mkdirSync(stateDir(env), { recursive: true });
  writeFileSync(file, JSON.stringify(state));
  const forget = () => rmSync(file, { force: true });
  process.once('exit', forget);
  return forget;
}

function parseState(text: string): StackState | undefined {
  try {
    const state = JSON.parse(text) as Partial<StackState>;
    const tables = Object.keys(TABLES).every((id) => typeof field(state.tables, id) === 'string');
    const urls = [state.apiUrl, state.endpoint].every((url) => typeof url === 'string' && URL.canParse(url));
    return Number.isInteger(state.pid) && tables && urls ? (state as StackState) : undefined;
  } catch {
    return undefined;
  }
}

export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return field(error, 'code') === 'EPERM';
  }
}

/** Whether something accepts connections at the URL's host and port. */
export function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname.replace(/^\[(.*)\]$/, '$1'));
    socket.once('error', () => resolve(false));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
  });
}

/**
 * The stacks recorded, and what was said of the stale records, which are removed: a process gone,
 * or its API port closed (after a reboot, its pid may be another process's), or a file unreadable.
 */
export async function recordedStacks(env: NodeJS.ProcessEnv = process.env) {
  const running: StackState[] = [];
  const stale: string[] = [];
  const names = await readdir(stateDir(env)).catch(() => []);
  for (const name of names.filter((file) => file.endsWith('.json'))) {
    const file = join(stateDir(env), name);
    const state = parseState(await readFile(file, 'utf8').catch(() => ''));
    if (state && processExists(state.pid) && (await answers(state.apiUrl))) {
      running.push(state);
      continue;
    }
    stale.push(
      state
        ? `Ignored the record of a local stack that is no longer running (pid ${state.pid}, ${state.apiUrl}), and removed it`
        : `Ignored ${file}, not a record of a local stack, and removed it`,
    );
    await rm(file, { force: true });
  }
  return { running, stale };
}

/** The running stack a URL names: its port, on a loopback address or the host it listens on. */
export function stackAt(url: string, stacks: readonly StackState[]): StackState | undefined {
  const { hostname, port } = new URL(url);
  return stacks.find((stack) => {
    const api = new URL(stack.apiUrl);
    return api.port === port && (api.hostname === hostname || /^(127\.|localhost$|\[::1\]$)/.test(hostname));
  });
}

/** The one local stack running, if any; several are a usage mistake naming how to `pick` each. */
export async function runningStack(env: NodeJS.ProcessEnv, pick: (stack: StackState) => string) {
  const { running } = await recordedStacks(env);
  if (running.length > 1)
    throw new UsageError(`${running.length} local stacks are running: pick one, ${running.map(pick).join(' or ')}`);
  return running[0];
}
