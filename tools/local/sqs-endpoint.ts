// The local delivery queue's SendMessage and SendMessageBatch over SQS's own protocol (AWS JSON 1.0, as
// @aws-sdk/client-sqs speaks it), so the service's SqsDeliveryQueue and the admin command send to the
// local stack with the SDK, as they send to SQS. The queue URL is in the stack's state file.
// Answers follow the SQS API reference (SendMessage, SendMessageBatch): ids and MD5 digests of the
// bodies, which the SDK checks; a refused send is an error with SQS's code.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { LocalQueue, md5Hex, QueueRefusal, type NewMessage } from './delivery-queue';

/** The local queue's URL path, as SQS shapes queue URLs (account, then name). */
export const LOCAL_QUEUE_PATH = '/000000000000/webhook-deliveries';

interface Entry {
  Id?: unknown;
  MessageBody?: unknown;
  DelaySeconds?: unknown;
  MessageGroupId?: unknown;
}

function entryOf(entry: Entry): NewMessage {
  if (typeof entry.MessageBody !== 'string' || entry.MessageBody === '')
    throw new QueueRefusal('MissingParameter', 'MessageBody is required');
  const delay = entry.DelaySeconds;
  if (delay !== undefined && typeof delay !== 'number')
    throw new QueueRefusal('InvalidParameterValue', 'DelaySeconds must be a number');
  return {
    body: entry.MessageBody,
    ...(delay !== undefined ? { delaySeconds: delay } : {}),
    ...(typeof entry.MessageGroupId === 'string' ? { groupId: entry.MessageGroupId } : {}),
  };
}

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  if (typeof parsed !== 'object' || parsed === null)
    throw new QueueRefusal('InvalidParameterValue', 'Not a JSON object');
  return parsed as Record<string, unknown>;
}

/** What one action answers, or a QueueRefusal. */
function act(queue: LocalQueue, action: string, input: Record<string, unknown>): unknown {
  if (action === 'SendMessage') {
    const message = entryOf(input);
    const [messageId] = queue.send([message]);
    return { MessageId: messageId, MD5OfMessageBody: md5Hex(message.body) };
  }
  if (action === 'SendMessageBatch') {
    const entries = Array.isArray(input.Entries) ? (input.Entries as Entry[]) : [];
    const ids = entries.map((entry) => (typeof entry.Id === 'string' ? entry.Id : ''));
    if (new Set(ids).size !== ids.length || ids.includes(''))
      throw new QueueRefusal('BatchEntryIdsNotDistinct', 'Each entry needs an Id of its own');
    const messages = entries.map(entryOf);
    const messageIds = queue.send(messages);
    return {
      Successful: messages.map((message, i) => ({
        Id: ids[i],
        MessageId: messageIds[i],
        MD5OfMessageBody: md5Hex(message.body),
      })),
      Failed: [],
    };
  }
  throw new QueueRefusal('UnsupportedOperation', `The local queue does not serve ${action}`);
}

/** An HTTP server for the queue, not yet listening: its URL is `http://<host>:<port>${LOCAL_QUEUE_PATH}`. */
export function createSqsEndpoint(queue: LocalQueue): Server {
  return createServer((request, response) => {
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', ...headers });
      response.end(JSON.stringify(body));
    };
    const target = String(request.headers['x-amz-target'] ?? '');
    const action = target.startsWith('AmazonSQS.') ? target.slice('AmazonSQS.'.length) : '';
    bodyOf(request)
      .then((input) => {
        if (typeof input.QueueUrl !== 'string' || !input.QueueUrl.endsWith(LOCAL_QUEUE_PATH))
          throw new QueueRefusal('QueueDoesNotExist', `No queue at ${String(input.QueueUrl)}`);
        answer(200, act(queue, action, input));
      })
      .catch((error: unknown) => {
        const code = error instanceof QueueRefusal ? error.code : 'InvalidParameterValue';
        const message = error instanceof Error ? error.message : String(error);
        answer(400, { __type: `com.amazonaws.sqs#${code}`, message }, { 'x-amzn-query-error': `${code};Sender` });
      });
  });
}

/** The queue's endpoint, listening on a free loopback port from its first use; closed with `close`. */
export function lazySqsEndpoint(queue: LocalQueue): { queueUrl(): Promise<string>; close(): void } {
  let listening: Promise<string> | undefined;
  let server: Server | undefined;
  return {
    queueUrl: () =>
      (listening ??= new Promise<string>((resolve, reject) => {
        const started = createSqsEndpoint(queue);
        server = started;
        started.unref();
        started.once('error', reject);
        started.listen(0, '127.0.0.1', () => {
          const address = started.address();
          const port = typeof address === 'object' && address !== null ? address.port : 0;
          resolve(`http://127.0.0.1:${port}${LOCAL_QUEUE_PATH}`);
        });
      })),
    close: () => {
      server?.closeAllConnections();
      server?.close();
    },
  };
}
