// The smoke suite (`npm run smoke`) run against the local stack, so its checks cannot rot: every
// check passes here (or is skipped for a stated reason), and against a server that merely
// answers 200 the suite fails.

import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { GetApiKeysCommand, type APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { AdminTarget } from '../../tools/admin/target';
import { testTarget } from '../support/admin-harness';
import { stackTarget } from '../../tools/admin/target';
import { recordStack, type StackDynamo, type StackState } from '../../tools/shared/stack-state';
import { createTestTables } from '../support/dynamo';
import {
  API_URL_OUTPUT,
  TABLE_NAME_OUTPUTS,
  USAGE_PLAN_ID_OUTPUTS,
  V2_API_URL_OUTPUT,
} from '../../lib/contract/deployment';
import { runSmokeCommand } from '../../tools/smoke/run';
import { PLAN_NAMES, type PlanName } from '../../lib/contract/plans';
import { createApiKey } from '../../lib/stores/key-service';
import { stageTarget, type StageClients } from '../../tools/admin/stage';
import {
  bindingsDeletedOnceLikeAws,
  createStackWithOutputs,
  createUsagePlans,
  failNext,
  MOTO_REGION,
  recordInputs,
  describeWithMoto,
  motoMissing,
  startMoto,
  type Moto,
} from '../support/moto';
import { generateApiKey } from '../../lib/core/access/key-format';
import { TABLES, type TableId } from '../../lib/contract/tables';
import { ThrowawayKeys, throwawayKeyName } from '../../tools/smoke/throwaway-keys';
import { CHECK_NAMES, runSmoke, SMOKE_ORDER_IDS, type CheckResult } from '../../tools/smoke/suite';
import { BASE_PATH, ROUTES, V2_BASE_PATH } from '../../lib/contract/routes';
import { startLocalStack, type LocalStack } from '../support/local-stack';
import { ordersById } from '../support/orders-table';
import { DEPRECATED_FIXTURE, deprecatedFixtureRoute } from '../support/deprecated-route';

/** The deprecation check is skipped when no declared route is deprecated (the pets route is). */
const DEPRECATION_SKIPS = ROUTES.some((route) => route.deprecated) ? 0 : 1;

let stack: LocalStack;
/** The state file npm start would write for the stack, in a folder of this test's own. */
let record: StackState;
const states = mkdtempSync(path.join(tmpdir(), 'smoke-stacks-'));
const STATES = { LOCAL_STACK_STATE_DIR: states };
let admin: AdminTarget;
let key: string;

/** moto_server, started beside the local stack: its start-up is seconds of Python imports. */
let motoStarting: Promise<Moto>;

beforeAll(async () => {
  motoStarting = motoMissing === undefined ? startMoto() : Promise.reject(new Error(motoMissing));
  // Unobserved until the command-line tests await it: a failure to start is theirs to report.
  motoStarting.catch(() => undefined);
  stack = await startLocalStack({
    // The stack's own limiter, as the composition root made it for the service's routes.
    extraRoutes: [deprecatedFixtureRoute(() => stack.app.limiter)],
  });
  record = {
    pid: process.pid,
    apiUrl: `${stack.baseUrl}${BASE_PATH}`,
    endpoint: stack.tables.endpoint,
    tables: stack.tables.names,
  };
  recordStack(record, STATES);
  admin = testTarget(stack.tables);
  ({ key } = await stack.newKey('enterprise', { perMinute: 10_000, perDay: 100_000 }));
  await stack.app.orders.putMany([
    { id: '9223372036854775807', status: 'pending' },
    { id: '9007199254740993', status: 'shipped' },
    { id: '1', status: 'cancelled' },
  ]);
});
afterAll(async () => {
  admin.close();
  const moto = await motoStarting.catch(() => undefined);
  await Promise.all([stack.close(), moto?.stop()]);
  rmSync(states, { recursive: true, force: true });
});

/** The shared admin target for a command, which closes what it is given: it stays open for the tests after. */
const sharedAdmin = (): AdminTarget => ({ ...admin, close: () => undefined });

/** The suite against the API at `origin`: v1 under BASE_PATH, and v2 under V2_BASE_PATH unless `v2` is false. */
async function smoke(
  origin: string,
  allowWrites: boolean,
  v2 = true,
): Promise<{ results: CheckResult[]; lines: string[] }> {
  const lines: string[] = [];
  const results = await runSmoke({
    baseUrl: `${origin}${BASE_PATH}`,
    ...(v2 ? { v2BaseUrl: `${origin}${V2_BASE_PATH}` } : {}),
    key,
    admin,
    allowWrites,
    print: (line) => lines.push(line),
    routes: [...ROUTES, DEPRECATED_FIXTURE],
    sleep: async () => undefined,
  });
  return { results, lines };
}

test('every check passes against the local stack, one line each, writes included', async () => {
  const before = await ordersById(stack.tables);
  const { results, lines } = await smoke(stack.baseUrl, true);
  expect(results.map((r) => `${r.outcome} ${r.name}`)).toEqual(CHECK_NAMES.map((name) => `ok ${name}`));
  expect(lines).toHaveLength(CHECK_NAMES.length);
  expect(lines.every((line) => line.startsWith('ok   '))).toBe(true);
  // Orders it did not create are unchanged; the ones it created are in its reserved range.
  const after = await ordersById(stack.tables);
  for (const [id, order] of before) expect(after.get(id)).toEqual(order);
  const created = [...after.keys()].filter((id) => !before.has(id));
  expect(created).toHaveLength(2);
  for (const id of created)
    expect(BigInt(id) >= SMOKE_ORDER_IDS.first && BigInt(id) < SMOKE_ORDER_IDS.first + SMOKE_ORDER_IDS.count).toBe(
      true,
    );
  // Its throwaway key is revoked.
  const keys = await admin.keys.list();
  expect(keys.filter((k) => k.name === 'smoke test (throwaway)').every((k) => k.revokedAt !== undefined)).toBe(true);
});

test('without --allow-writes nothing is written, and the write check says it was skipped; without a v2 URL, the v2 check', async () => {
  const before = await ordersById(stack.tables);
  const { results } = await smoke(stack.baseUrl, false, false);
  expect(results.filter((r) => r.outcome !== 'ok')).toEqual([
    {
      name: CHECK_NAMES.find((name) => name.startsWith(`GET ${V2_BASE_PATH}/`)),
      outcome: 'skip',
      detail: 'no v2 base URL: no V2ApiUrl stack output (deployed before v2), nor a base URL ending in /v1',
    },
    { name: CHECK_NAMES[CHECK_NAMES.length - 1], outcome: 'skip', detail: 'writes need --allow-writes' },
  ]);
  expect(await ordersById(stack.tables)).toEqual(before);
});

test('against a server that answers 200 to everything, the checks fail', async () => {
  const server: Server = createServer((_req, res) => res.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const { results, lines } = await smoke(`http://127.0.0.1:${port}`, false);
    const failed = results.filter((r) => r.outcome === 'FAIL').map((r) => r.name);
    // The write check is skipped; every other one notices.
    expect(failed).toEqual(CHECK_NAMES.slice(0, -1));
    expect(lines.filter((line) => line.startsWith('FAIL '))).toHaveLength(failed.length);
  } finally {
    server.close();
  }
});

describeWithMoto('the command line', () => {
  // CloudFormation and API Gateway are moto_server: the stage's stack outputs point at this local
  // stack and its tables; the throwaway keys' API Gateway side lives in moto's usage plans.
  let moto: Moto;
  let gateway: APIGatewayClient;
  let usagePlans: Record<PlanName, string>;
  /** Sees each run's clients before it starts: to record what they send, or inject a fault. */
  let configure: (clients: StageClients) => void;

  beforeAll(async () => {
    moto = await motoStarting;
    gateway = moto.apiGateway();
    usagePlans = await createUsagePlans(gateway, PLAN_NAMES, 'staging');
    const cloudFormation = moto.cloudFormation();
    await createStackWithOutputs(cloudFormation, 'StoreOrders-staging', {
      [API_URL_OUTPUT]: `${stack.baseUrl}${BASE_PATH}/`,
      [V2_API_URL_OUTPUT]: `${stack.baseUrl}${V2_BASE_PATH}/`,
      ...Object.fromEntries(
        Object.entries(TABLE_NAME_OUTPUTS).map(([table, key]) => [key, stack.tables.names[table as TableId]]),
      ),
      ...Object.fromEntries(PLAN_NAMES.map((plan) => [USAGE_PLAN_ID_OUTPUTS[plan], usagePlans[plan]])),
    });
    cloudFormation.destroy();
  });
  afterAll(() => gateway.destroy());
  beforeEach(() => {
    configure = () => undefined;
  });

  /** Gateway API keys left in moto: none, after any run. */
  async function gatewayKeysLeft(): Promise<string[]> {
    return ((await gateway.send(new GetApiKeysCommand({}))).items ?? []).map((k) => k.id ?? '');
  }

  const stageClients = (): StageClients => {
    const clients = {
      cloudFormation: moto.cloudFormation(),
      apiGateway: moto.apiGateway(),
      dynamo: { endpoint: stack.tables.endpoint },
    };
    configure(clients);
    return clients;
  };

  function command(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    return runSmokeCommand(argv, {
      out: { out: (line) => out.push(line), err: (line) => err.push(line) },
      stageClients,
      local: () => {
        throw new Error('--stage must not use the local stack');
      },
      sleep: async () => undefined,
    }).then((code) => ({ code, out, err }));
  }

  test('--stage staging: URL from the stack outputs, its own keys registered with API Gateway and revoked, exit 0', async () => {
    let describes: unknown[] = [];
    let bindings: { usagePlanId?: string }[] = [];
    configure = (clients) => {
      describes = recordInputs(clients.cloudFormation, 'DescribeStacksCommand');
      bindings = recordInputs(clients.apiGateway, 'CreateUsagePlanKeyCommand');
    };
    const { code, out, err } = await command('--stage', 'staging', '--allow-writes');
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[0]).toBe(
      `Smoke test of ${stack.baseUrl}${BASE_PATH} (keys and orders through stage staging (stack StoreOrders-staging in ${MOTO_REGION}))`,
    );
    // Skipped: the deprecation check, while no declared route is deprecated.
    expect(out.at(-1)).toBe(`${CHECK_NAMES.length - DEPRECATION_SKIPS} passed, 0 failed, ${DEPRECATION_SKIPS} skipped`);
    // The key for the read checks and the one run to its limit: both made for the enterprise
    // plan's usage plan, both deleted at the end: no gateway key is left behind.
    expect(bindings.map((b) => b.usagePlanId)).toEqual([usagePlans.enterprise, usagePlans.enterprise]);
    expect(await gatewayKeysLeft()).toEqual([]);
    // The URL, tables and usage plans all come from one description of the stack.
    expect(describes).toHaveLength(1);
    const throwaway = (await stack.app.keys.list()).filter((k) => k.name === 'smoke test (throwaway)');
    expect(throwaway.every((k) => k.revokedAt !== undefined)).toBe(true);
  });

  // Usage mistakes, --help and options npm took: test/unit/smoke-args.spec.ts.

  test('--stage with no AWS region is one line naming AWS_REGION and --region, exit 2', async () => {
    configure = (clients) => failNext(clients.cloudFormation, 'DescribeStacksCommand', new Error('Region is missing'));
    const { code, out, err } = await command('--stage', 'prod');
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err).toEqual([
      'Error: No AWS region is set: set AWS_REGION or pass --region, e.g. npm run smoke -- --stage staging --region eu-west-1',
    ]);
  });

  test('Ctrl-C during a run stops it and leaves no API Gateway key behind, exit 130', async () => {
    const interrupt = new AbortController();
    // The second key is the 429 check's own: the run is interrupted while it is being made.
    let created = 0;
    configure = (clients) =>
      clients.apiGateway.middlewareStack.add(
        (next, context) => (args) => {
          if (context.commandName === 'CreateApiKeyCommand' && ++created === 2) interrupt.abort();
          return next(args);
        },
        { step: 'initialize', name: 'interruptOnSecondKey' },
      );
    const out: string[] = [];
    const err: string[] = [];
    const code = await runSmokeCommand(['--stage', 'staging'], {
      out: { out: (line) => out.push(line), err: (line) => err.push(line) },
      stageClients,
      local: () => sharedAdmin(),
      sleep: async () => undefined,
      signal: interrupt.signal,
    });
    expect(code).toBe(130);
    expect(err).toEqual([
      'Interrupted: stopped, and the throwaway keys of this run are revoked (their API Gateway keys deleted).',
    ]);
    expect(created).toBe(2);
    expect(await gatewayKeysLeft()).toEqual([]);
    const throwaway = (await stack.app.keys.list()).filter((k) => k.name === 'smoke test (throwaway)');
    expect(throwaway.every((k) => k.revokedAt !== undefined && k.gatewayKeyId === undefined)).toBe(true);
  });

  test('a check that fails while revoking its key still leaves no API Gateway key behind', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' });
    configure = (clients) => {
      failNext(clients.apiGateway, 'DeleteApiKeyCommand', throttled);
      // The revoke is retried at the end of the run: its binding was deleted the first time.
      bindingsDeletedOnceLikeAws(clients.apiGateway);
    };
    const { code, out } = await command('--stage', 'staging');
    expect(code).toBe(1);
    expect(out.filter((line) => line.startsWith('FAIL '))).toEqual([
      expect.stringContaining(
        '429 with Retry-After for a throwaway enterprise key at its limit (unexpected error: Rate exceeded)',
      ),
    ]);
    expect(await gatewayKeysLeft()).toEqual([]);
  });

  test('--clean-up --run removes the API Gateway key a killed run made but never recorded', async () => {
    // What a run killed between creating a key's gateway side and recording its id leaves: a
    // record named for the run, with no gateway key id, and a gateway key named for the record.
    const target = await stageTarget('staging', stageClients());
    const { record } = await createApiKey(target.keys, {
      plan: 'enterprise',
      name: throwawayKeyName('killed-42'),
      limits: { perMinute: 1, perDay: 1 },
    });
    await target.gateway?.register(record);
    target.close();
    expect(await gatewayKeysLeft()).toHaveLength(1);

    const { code, out, err } = await command('--stage', 'staging', '--clean-up', '--run', 'killed-42');
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out).toEqual([
      `Run killed-42: revoked 1 throwaway key(s) left live, deleted 1 unrecorded API Gateway key(s) (stage staging (stack StoreOrders-staging in ${MOTO_REGION})).`,
    ]);
    expect(await gatewayKeysLeft()).toEqual([]);
    expect((await stack.app.keys.get(record.id))?.revokedAt).toBeDefined();
  });
});

describe('the command line against the local stack', () => {
  const port = () => new URL(stack.baseUrl).port;
  /** What each run was told by the stack, in order. */
  let published: StackDynamo[] = [];
  beforeEach(() => {
    published = [];
  });

  async function local(env: NodeJS.ProcessEnv, ...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runSmokeCommand(argv, {
      out: { out: (line) => out.push(line), err: (line) => err.push(line) },
      stageClients: () => {
        throw new Error('no stage here');
      },
      // As the CLI does: the DynamoDB and tables that the stack at the URL recorded.
      local: (found) => {
        published.push(found);
        return stackTarget(found);
      },
      sleep: async () => undefined,
      env: { ...STATES, ...env },
    });
    return { code, out, err };
  }

  /**
   * A port where nothing listens, so the connection is refused (ECONNREFUSED). Not one the system
   * gave out and took back: listen(0) elsewhere (another jest worker, another process) could get it
   * again before the command connects. Port 2 is a privileged port that no service in use listens
   * on, outside the range listen(0) draws from, and not one of the ports fetch refuses to use at all
   * (1 is: "bad port", not ECONNREFUSED).
   */
  const NOTHING_LISTENS = 2;

  test('plain `npm run smoke` checks the local stack on PORT with a key of its own, revoked after', async () => {
    const { code, out, err } = await local({ PORT: port() });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(published).toEqual([record]);
    expect(out[0]).toBe(
      `Smoke test of ${stack.baseUrl}${BASE_PATH} (keys and orders through the local stack (DynamoDB at ${stack.tables.endpoint}))`,
    );
    // Skipped: the writes (no --allow-writes), and the deprecation check while no route is deprecated.
    const skipped = 1 + DEPRECATION_SKIPS;
    expect(out.at(-1)).toBe(`${CHECK_NAMES.length - skipped} passed, 0 failed, ${skipped} skipped`);
    const keys = await admin.keys.list();
    expect(keys.filter((k) => k.name === 'smoke test (throwaway)').every((k) => k.revokedAt !== undefined)).toBe(true);
  });

  test('with neither PORT nor --url, the one stack npm start recorded is found on its own port; --url needs no --key', async () => {
    for (const argv of [[], ['--url', `${stack.baseUrl}${BASE_PATH}`]]) {
      published = [];
      const { code, out, err } = await local({}, ...argv);
      expect({ code, err, published }).toEqual({ code: 0, err: [], published: [record] });
      expect(out[0]).toMatch(new RegExp(`^Smoke test of ${stack.baseUrl}${BASE_PATH} `));
    }
  });

  test('several stacks recorded and running: one line naming the --url of each, exit 2', async () => {
    // A second stack's record: this process again, its API on a port where something listens.
    const other: Server = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const apiUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}${BASE_PATH}`;
    const forget = recordStack({ ...record, apiUrl }, STATES);
    try {
      const { code, out, err } = await local({});
      expect({ code, out, published }).toEqual({ code: 2, out: [], published: [] });
      expect(err).toHaveLength(1);
      expect(err[0]).toMatch(/^Error: 2 local stacks are running: pick one, --url \S+ or --url \S+ \(npm run smoke/);
      for (const url of [record.apiUrl, apiUrl]) expect(err[0]).toContain(`--url ${url}`);
    } finally {
      forget();
      other.close();
    }
  });

  test('the stack on PORT is found whatever DYNAMODB_PORT or DYNAMODB_ENDPOINT say: its keys go to its own tables', async () => {
    // Another DynamoDB: tables of their own, named by the admin command's variables.
    const other = await createTestTables();
    try {
      const env = {
        PORT: port(),
        DYNAMODB_PORT: String(NOTHING_LISTENS),
        DYNAMODB_ENDPOINT: other.endpoint,
        ...Object.fromEntries(Object.entries(TABLES).map(([id, table]) => [table.envVar, other.names[id as TableId]])),
      };
      const throwawayBefore = (await admin.keys.list()).filter((k) => k.name === 'smoke test (throwaway)').length;
      const { code, err } = await local(env);
      expect({ code, err }).toEqual({ code: 0, err: [] });
      expect(published).toEqual([record]);
      const made = (await admin.keys.list()).filter((k) => k.name === 'smoke test (throwaway)');
      expect(made.length).toBeGreaterThan(throwawayBefore);
      expect(made.every((k) => k.revokedAt !== undefined)).toBe(true);
      expect(await other.stores().keys.list()).toEqual([]);
    } finally {
      await other.drop();
    }
  });

  test('--url of an API no npm start recorded, or only a stale record of: one line saying to give --stage, exit 2, no key made', async () => {
    // Answers like the API to the base URL check (401 UNAUTHORIZED), and like a deployed API elsewhere.
    const server: Server = createServer((_req, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ code: 'UNAUTHORIZED', message: 'Unauthorized', status: 401 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${BASE_PATH}`;
      const refused = [
        `Error: ${url} is no local stack this checkout's \`npm start\` runs, so the smoke command cannot make its keys there: for a deployed API give --stage STAGE as well`,
      ];
      const unrecorded = await local({}, '--url', url, '--key', key);
      expect({ ...unrecorded, published }).toEqual({ code: 2, out: [], err: refused, published: [] });
      // A record of a stack killed with SIGKILL: its process is gone, though something answers on its port.
      const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid;
      const staleFile = path.join(states, `${new URL(url).port}.json`);
      writeFileSync(staleFile, JSON.stringify({ ...record, pid: dead, apiUrl: url }));
      const stale = await local({}, '--url', url, '--key', key);
      expect({ ...stale, published }).toEqual({ code: 2, out: [], err: refused, published: [] });
      expect(existsSync(staleFile)).toBe(false);
    } finally {
      server.close();
    }
  });

  test('plain `npm run smoke` with no local stack running: one line saying to run npm start, exit 2', async () => {
    const { code, out, err } = await local({ PORT: String(NOTHING_LISTENS) });
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err).toEqual([
      `Error: Nothing answers at http://127.0.0.1:${NOTHING_LISTENS}${BASE_PATH} (ECONNREFUSED): start the local stack with \`npm start\` in another terminal first, or give --url or --stage`,
    ]);
  });

  test('--url of a server that is down: one line, exit 2', async () => {
    const { code, out, err } = await local({}, '--url', `http://127.0.0.1:${NOTHING_LISTENS}/v1`, '--key', key);
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err).toEqual([
      `Error: Nothing answers at http://127.0.0.1:${NOTHING_LISTENS}/v1 (ECONNREFUSED): check --url and that the API is running`,
    ]);
  });

  test('--url without the base path: one line showing the URL with it, exit 2', async () => {
    const { code, out, err } = await local({}, '--url', stack.baseUrl, '--key', key);
    expect({ code, out }).toEqual({ code: 2, out: [] });
    expect(err).toEqual([
      `Error: ${stack.baseUrl} is not the Store Orders API's base URL (GET /store/orders under it without a key answered 404, not 401): the base URL ends in the base path, e.g. ${stack.baseUrl}${BASE_PATH}`,
    ]);
  });

  test('a key the API refuses, or one that is no key at all: one line each, never echoing it, exit 2', async () => {
    const unknown = generateApiKey();
    const refused = await local({}, '--url', `${stack.baseUrl}${BASE_PATH}`, '--key', unknown);
    expect({ code: refused.code, out: refused.out }).toEqual({ code: 2, out: [] });
    expect(refused.err).toEqual([
      'Error: The API refused --key (401 UNAUTHORIZED: unknown or revoked): create one with `npm run admin -- keys create --plan free`, or leave --key out',
    ]);
    const typo = await local({}, '--url', `${stack.baseUrl}${BASE_PATH}`, '--key', `${key}x`);
    expect(typo.code).toBe(2);
    expect(typo.err).toHaveLength(1);
    expect(typo.err[0]).toContain('--key is not an API key');
    expect(typo.err[0]).not.toContain(key);
  });
});

describe('a run stopped from outside', () => {
  const RUN = 'signal-test-1';
  const runKeys = async () => (await stack.app.keys.list()).filter((k) => k.name === throwawayKeyName(RUN));

  // The one spawned process: what is tested is the process's own signal handling (a cancelled or
  // timed-out CI job sends SIGTERM). The API it checks answers 401 to everything, so the run waits
  // for its new key to be accepted, with that key live, until the signal comes.
  test('SIGTERM revokes the keys the run made and exits 143', async () => {
    /** Called when the run sends a request with a key: only after it has made one. */
    let keyTried: (() => void) | undefined;
    const refusing: Server = createServer((req, res) => {
      if (req.headers.authorization !== undefined) keyTried?.();
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ code: 'UNAUTHORIZED', message: 'no' }));
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = refusing.address() as AddressInfo;
      // Recorded with the stack's DynamoDB, as npm start records a local stack.
      recordStack({ ...record, apiUrl: `http://127.0.0.1:${port}${BASE_PATH}` }, STATES);
      const tableEnv = Object.fromEntries(
        (Object.keys(TABLES) as TableId[]).map((id) => [TABLES[id].envVar, stack.tables.names[id]]),
      );
      const child = spawn(process.execPath, ['--import', 'tsx', 'tools/smoke/cli.ts', '--run', RUN], {
        cwd: path.join(__dirname, '..', '..'),
        env: { ...process.env, ...STATES, PORT: String(port), DYNAMODB_ENDPOINT: stack.tables.endpoint, ...tableEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      // Looks in the table, not at the clock, each time the run tries a key (not in a busy loop, which
      // took CPU from the starting process): the signal goes once the run's key exists.
      for (;;) {
        const tried = new Promise<void>((resolve) => (keyTried = resolve));
        if ((await runKeys()).length > 0) break;
        await tried;
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(stderr).toContain('Interrupted: stopped, and the throwaway keys of this run are revoked');
      const keys = await runKeys();
      expect(keys).toHaveLength(1);
      expect(keys.every((k) => k.revokedAt !== undefined)).toBe(true);
    } finally {
      refusing.closeAllConnections();
      refusing.close();
    }
  });

  test('a key that lands as the run ends is revoked once, though its maker and revokeAll both reach it', async () => {
    const interrupt = new AbortController();
    const revoke = jest.spyOn(admin.keys, 'revoke');
    try {
      const landing = new ThrowawayKeys(admin, interrupt.signal, 'landing');
      const made = landing.create({ perMinute: 1, perDay: 1 });
      // Ctrl-C while the key is being made: create() revokes it as it lands, and revokeAll, which
      // waits for keys being made, finds it live too.
      interrupt.abort();
      const [outcome, problems] = await Promise.allSettled([made, landing.revokeAll()]);
      expect(outcome.status).toBe('rejected');
      expect(problems).toEqual({ status: 'fulfilled', value: [] });
      expect(revoke).toHaveBeenCalledTimes(1);
      const [id = ''] = revoke.mock.calls[0] ?? [];
      expect((await admin.keys.get(id))?.revokedAt).toBeDefined();
      expect(await landing.revokeAll()).toEqual([]);
      expect(revoke).toHaveBeenCalledTimes(1);
    } finally {
      revoke.mockRestore();
    }
  });

  test('--clean-up --run revokes what a killed run left, and only that run', async () => {
    const left = new ThrowawayKeys(admin, undefined, 'killed-run');
    const other = new ThrowawayKeys(admin, undefined, 'other-run');
    const orphan = await left.create({ perMinute: 1, perDay: 1 });
    const kept = await other.create({ perMinute: 1, perDay: 1 });
    const out: string[] = [];
    const code = await runSmokeCommand(['--clean-up', '--run', 'killed-run'], {
      // The local stack at PORT recorded where its keys are.
      env: { ...STATES, PORT: new URL(stack.baseUrl).port },
      out: { out: (line) => out.push(line), err: (line) => out.push(line) },
      stageClients: () => {
        throw new Error('no stage here');
      },
      local: () => sharedAdmin(),
    });
    expect(code).toBe(0);
    expect(out).toEqual([
      'Run killed-run: revoked 1 throwaway key(s) left live, deleted 0 unrecorded API Gateway key(s) (the test tables).',
    ]);
    expect((await admin.keys.get(orphan.id))?.revokedAt).toBeDefined();
    expect((await admin.keys.get(kept.id))?.revokedAt).toBeUndefined();
    await other.revokeAll();
  });
});
