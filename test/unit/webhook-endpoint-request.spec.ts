import { parseEndpointRequest } from '../../lib/core/webhooks/endpoint-request';
import { InvalidWebhookEndpointError } from '../../lib/core/webhooks/webhook-errors';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_LIMITS } from '../../lib/contract/webhooks';

function refused(text: string | undefined): string {
  try {
    parseEndpointRequest(text);
  } catch (error) {
    if (error instanceof InvalidWebhookEndpointError) return error.answerMessage();
    throw error;
  }
  throw new Error('accepted');
}

test('a url alone asks for every event type; given types come back once each, in their declared order', () => {
  expect(parseEndpointRequest('{"url":"https://example.com/h"}')).toEqual({
    url: 'https://example.com/h',
    eventTypes: [...WEBHOOK_EVENT_TYPES],
  });
  expect(
    parseEndpointRequest('{"eventTypes":["order.shipped","order.created"],"url":"https://example.com/h"}').eventTypes,
  ).toEqual(['order.created', 'order.shipped']);
});

test.each(
  [
    [undefined, 'The request needs a JSON body'],
    ['   ', 'The request needs a JSON body'],
    ['{"url":', 'The body is not JSON'],
    ['url=https://example.com', 'The body is not JSON'],
    ['[]', 'The body must be a JSON object, not an array'],
    ['null', 'The body must be a JSON object, not null'],
    ['"https://example.com"', 'The body must be a JSON object, not a string'],
    ['{}', 'url is required'],
    ['{"url":42}', 'url must be a string, not a number'],
    ['{"url":null}', 'url must be a string, not null'],
    ['{"url":"https://e.com","secret":"mine"}', 'Unknown field "secret": the body has url and eventTypes only'],
    ['{"url":"https://e.com","__proto__":{}}', 'Unknown field "__proto__"'],
    [`{"url":"https://e.com/${'a'.repeat(WEBHOOK_LIMITS.urlMaxLength)}"}`, 'url is longer than 2048 characters'],
    ['{"url":"https://e.com","eventTypes":"order.created"}', 'eventTypes must be an array, not a string'],
    ['{"url":"https://e.com","eventTypes":[]}', 'eventTypes must name at least one event type'],
    [
      '{"url":"https://e.com","eventTypes":["order.deleted"]}',
      'the unknown event type "order.deleted": each is one of',
    ],
    ['{"url":"https://e.com","eventTypes":[7]}', 'eventTypes has a number: each is one of'],
    ['{"url":"https://e.com","eventTypes":["order.created","order.created"]}', 'eventTypes names order.created twice'],
    [
      `{"url":"https://e.com","eventTypes":${JSON.stringify([...WEBHOOK_EVENT_TYPES, 'order.created'])}}`,
      'eventTypes may name at most 4 event types, each once; it has 5',
    ],
  ].map(([body, message]) => ({ body, message })),
)('refused: $message', ({ body, message }) => {
  expect(refused(body)).toContain(message);
});

test('a long unknown field name is quoted shortened, with its length', () => {
  expect(refused(`{"url":"https://e.com","${'x'.repeat(500)}":1}`)).toBe(
    `Unknown field "${'x'.repeat(60)}"… (500 characters): the body has url and eventTypes only`,
  );
});
