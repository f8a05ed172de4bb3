// One delivery attempt on the wire, against servers on loopback: it connects to the address the
// destination check returned, never to another lookup of the name (a name no resolver knows still
// reaches the pinned address, and is the Host the receiver sees), keeps the name for TLS's server
// name (SNI), follows no redirect, and is cut at its timeout on the timers it is given.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { postWebhook, WEBHOOK_USER_AGENT } from '../../lib/stores/webhook-sender';
import { ManualTimers } from '../support/webhook-world';

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

async function httpReceiver(answer: (headers: IncomingHttpHeaders) => { status: number; location?: string } | 'hang') {
  const seen: { headers: IncomingHttpHeaders; body: string; url: string | undefined }[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ headers: request.headers, body, url: request.url });
      const answered = answer(request.headers);
      if (answered === 'hang') return;
      response.writeHead(answered.status, answered.location ? { Location: answered.location } : {}).end('ignored');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { port: (server.address() as AddressInfo).port, seen };
}

const post = (url: string, extra: Partial<Parameters<typeof postWebhook>[0]> = {}) => ({
  url,
  address: '127.0.0.1',
  headers: { 'webhook-id': 'evt_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
  body: '{"type":"order.created"}',
  timeoutMs: 10_000,
  ...extra,
});

test('the POST goes to the pinned address, with the name as Host, the signed headers and the body', async () => {
  const receiver = await httpReceiver(() => ({ status: 204 }));
  // `.invalid` is never resolved by anyone (RFC 6761): only the pinned lookup can reach the receiver.
  const outcome = await postWebhook(post(`http://hooks.invalid:${receiver.port}/in?x=1`));
  expect(outcome).toEqual({ status: 204, latencyMs: expect.any(Number) });
  expect(receiver.seen).toEqual([
    {
      url: '/in?x=1',
      body: '{"type":"order.created"}',
      headers: expect.objectContaining({
        host: `hooks.invalid:${receiver.port}`,
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'webhook-id': 'evt_1',
        'webhook-signature': 'v1,x',
      }) as IncomingHttpHeaders,
    },
  ]);
});

test('a redirect is the answer, not followed: its target is never asked', async () => {
  const target = await httpReceiver(() => ({ status: 200 }));
  const receiver = await httpReceiver(() => ({ status: 307, location: `http://127.0.0.1:${target.port}/` }));
  expect(await postWebhook(post(`http://hooks.invalid:${receiver.port}/`))).toMatchObject({ status: 307 });
  expect(target.seen).toEqual([]);
});

test('https keeps the name for TLS (SNI) while it connects to the pinned address', async () => {
  let hello: Buffer = Buffer.alloc(0);
  const server = createTcpServer((socket: Socket) => {
    socket.once('data', (chunk: Buffer) => {
      hello = chunk;
      socket.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => server.close());
  const { port } = server.address() as AddressInfo;
  const outcome = await postWebhook(post(`https://receiver.invalid:${port}/`));
  expect(outcome).toMatchObject({ error: expect.any(String) });
  // The ClientHello reached the pinned address, carrying the name in its server_name extension.
  expect(hello.includes(Buffer.from('receiver.invalid'))).toBe(true);
});

test('an attempt is cut at its timeout, on the timers it is given', async () => {
  const receiver = await httpReceiver(() => 'hang');
  let now = 0;
  const timers = new ManualTimers(() => now);
  const attempt = postWebhook(post(`http://hooks.invalid:${receiver.port}/`, { timeoutMs: 10_000 }), timers);
  while (receiver.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  now = 10_000;
  timers.fireDue();
  expect(await attempt).toEqual({ error: 'no answer within 10 s', latencyMs: 10_000 });
});

test('a refused connection is a failure, with its reason', async () => {
  const receiver = await httpReceiver(() => ({ status: 200 }));
  closers.splice(0).forEach((close) => close());
  expect(await postWebhook(post(`http://hooks.invalid:${receiver.port}/`))).toMatchObject({
    error: expect.stringMatching(/ECONNREFUSED/),
  });
});
