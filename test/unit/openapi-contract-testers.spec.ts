// What contract testers (Dredd, Portman) need from the document to run against it as served, with
// no hand-written hooks: an example for every path parameter, and integer headers with a format.
import { buildOpenApiDocument } from '../../lib/contract/openapi/document';
import { ROUTES } from '../../lib/contract/routes';
import { parseOrderId } from '../../lib/core/orders/order-id';

type Json = Record<string, unknown>;
const document = buildOpenApiDocument() as Json;
const operations = Object.values(document.paths as Record<string, Json>).flatMap((item) =>
  Object.values(item).filter((op): op is Json => typeof op === 'object' && op !== null && 'responses' in op),
);

test('every route with a path parameter is in the document', () => {
  const withParameters = ROUTES.filter((route) => route.path.includes('{'));
  expect(withParameters.length).toBeGreaterThan(0);
  expect(operations.filter((op) => Array.isArray(op.parameters)).length).toBeGreaterThanOrEqual(withParameters.length);
});

test.each(operations.flatMap((op) => ((op.parameters as Json[] | undefined) ?? []).map((p) => [op.operationId, p])))(
  '%s: the path parameter has an example the API accepts',
  (_operation, parameter) => {
    const { name, example } = parameter as Json;
    expect(example).toBeDefined();
    if (name === 'orderId') expect(() => parseOrderId(String(example))).not.toThrow();
  },
);

test('every integer response header declares its format', () => {
  const headers = operations.flatMap((op) =>
    Object.values(op.responses as Record<string, Json>).flatMap((response) =>
      Object.entries((response.headers as Record<string, Json> | undefined) ?? {}),
    ),
  );
  const integers = headers.filter(([, header]) => (header.schema as Json | undefined)?.type === 'integer');
  expect(integers.length).toBeGreaterThan(0);
  for (const [name, header] of integers) {
    expect({ name, format: (header.schema as Json).format }).toEqual({
      name,
      format: expect.stringMatching(/^int(32|64)$/),
    });
  }
});
