// Requests that never arrive whole: a declared body the client never sends, a chunk size that
// overflows, a body slower than the receive limit. Each gets the Error body where the client can
// still read it, and the gateway closes the connection instead of holding the socket forever.

import { connect } from 'node:net';
import type { Server } from 'node:http';
import { startLocalStack, type LocalStack } from '../support/local-stack';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    // Short enough that the slow-body test does not wait a minute; the check interval bounds the delay.
    receiveLimits: {
      headersTimeout: 1_000,
      requestTimeout: 2_000,
      keepAliveTimeout: 5_000,
      connectionsCheckingInterval: 250,
    },
  });
});
afterAll(() => stack.close());

function connections(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

/** Polls until the condition holds; a guard against a hang far beyond what it needs, not a timing assertion. */
async function eventually(condition: () => Promise<boolean>, guardMs = 60_000): Promise<boolean> {
  const until = Date.now() + guardMs;
  while (Date.now() < until) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

interface Sent {
  /** What the server wrote before it closed its side. */
  received: Promise<string>;
  destroy(): void;
}

/** Writes the bytes on a new connection, then half-closes it, fully closes it, or keeps it open. */
function send(bytes: string, then: 'half-close' | 'close' | 'keep-open'): Sent {
  const { port } = new URL(stack.baseUrl);
  const socket = connect(Number(port), '127.0.0.1', () => {
    socket.write(bytes);
    if (then === 'half-close') socket.end();
    if (then === 'close') socket.destroy();
  });
  let data = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (data += chunk));
  const received = new Promise<string>((resolve) => {
    socket.on('end', () => resolve(data));
    socket.on('close', () => resolve(data));
  });
  socket.on('error', () => undefined);
  return { received, destroy: () => socket.destroy() };
}

function errorBodyIn(response: string): unknown {
  return JSON.parse(response.slice(response.indexOf('{'), response.lastIndexOf('}') + 1));
}

const head = (framing: string) => `POST /v1/store/orders HTTP/1.1\r\nHost: x\r\n${framing}\r\n\r\n`;

test('200 requests whose declared body never comes: every socket is closed, the count is back to baseline', async () => {
  const baseline = await connections(stack.app.server);
  let accepted = 0;
  const onConnection = () => (accepted += 1);
  stack.app.server.on('connection', onConnection);
  const heads = [
    head('Content-Length: 11534336'),
    head('Content-Length: 4294967296'),
    `${head('Transfer-Encoding: chunked')}ffffffffffffffff\r\n`,
    head('Content-Length: 100') + 'only part of it',
  ];
  const sent = Array.from({ length: 200 }, (_, i) =>
    send(heads[i % heads.length] ?? '', i % 5 === 0 ? 'close' : 'half-close'),
  );
  try {
    // Each was accepted, then closed by the server (the clients that half-closed still read).
    expect(await eventually(async () => accepted === sent.length)).toBe(true);
    expect(await eventually(async () => (await connections(stack.app.server)) === baseline)).toBe(true);
    const answers = await Promise.all(sent.filter((_, i) => i % 5 !== 0).map((s) => s.received));
    for (const answer of answers) {
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      expect(errorBodyIn(answer)).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    }
  } finally {
    stack.app.server.off('connection', onConnection);
    for (const s of sent) s.destroy();
  }
}, 120_000);

/** Sends `request` and keeps the socket open: the answer must be 400 BAD_REQUEST with the Error body. */
async function expectBadRequest(request: string, message: string): Promise<void> {
  const sent = send(request, 'keep-open');
  try {
    const answer = await sent.received;
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(answer).toMatch(/\r\ncontent-type: application\/json\r\n/i);
    expect(errorBodyIn(answer)).toEqual({ code: 'BAD_REQUEST', message, status: 400 });
  } finally {
    sent.destroy();
  }
}

test('a declared length over the payload limit is refused with the limit, without waiting for the body', () =>
  expectBadRequest(head('Content-Length: 4294967296'), 'The request payload is larger than 10 MB.'));

test('a 17-hex-digit chunk size: 400 BAD_REQUEST with the Error body, then the connection is closed', () =>
  expectBadRequest(
    `${head('Transfer-Encoding: chunked')}1ffffffffffffffff\r\n`,
    'The request has an invalid chunk size.',
  ));

test(
  'a body slower than the receive limit: 400 BAD_REQUEST naming the limit, then the connection is closed',
  () =>
    expectBadRequest(
      head('Content-Length: 100') + 'a few bytes, then nothing',
      'The request was not received in full within 2 s.',
    ),
  60_000,
);

test(
  'headers slower than the receive limit: 400 BAD_REQUEST naming the limit',
  () =>
    expectBadRequest(
      'GET /v1/store/orders HTTP/1.1\r\nHost: x\r\n',
      'The request headers were not received within 1 s.',
    ),
  60_000,
);
