import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { JsonObject, JsonValue } from '../../lib/contract/openapi/schemas';
import { BASE_PATH } from '../../lib/contract/routes';

/** Headers of the transport, not of the interface; everything else must be documented. */
const TRANSPORT_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'x-amzn-requestid',
]);
const DOC_ID = 'http://contract.test/openapi.json';

export interface ObservedResponse {
  method: string;
  /** Path and query as requested, e.g. `/v1/store/orders/5`. */
  url: string;
  status: number;
  headers: Headers;
  body: string;
}

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function child(value: JsonValue | undefined, key: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const next = value[key];
  return isObject(next) ? next : undefined;
}

/** Local refs point into the registered document, so a schema can be compiled on its own. */
function anchored(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(anchored);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#') ? DOC_ID + v : anchored(v),
    ]),
  );
}

function templateMatches(template: string, path: string): boolean {
  const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]*');
  return new RegExp(`^${source}$`).test(path);
}

/**
 * Checks responses against an OpenAPI document: the status must be documented for the operation
 * (or, for a request no operation matches, among the gateway's own answers), every header but the
 * transport's must be documented, required ones present, and values and body must match their
 * schemas. Returns the problems found; none means the response keeps the contract.
 */
export function contractValidator(
  document: JsonObject,
  basePath: string = BASE_PATH,
): (observed: ObservedResponse) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, DOC_ID);
  const compiled = new WeakMap<JsonObject, ValidateFunction>();
  const compile = (schema: JsonObject): ValidateFunction => {
    let validate = compiled.get(schema);
    if (!validate) {
      validate = ajv.compile(anchored(schema) as JsonObject);
      compiled.set(schema, validate);
    }
    return validate;
  };
  const paths = child(document, 'paths') ?? {};
  const gateway = child(document, 'x-gateway-responses') ?? {};

  function responsesFor(method: string, url: string): { where: string; responses: JsonObject } {
    const pathname = new URL(url, 'http://x').pathname;
    const inside = pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : undefined;
    const template = inside === undefined ? undefined : Object.keys(paths).find((t) => templateMatches(t, inside));
    if (template === undefined) return { where: `unknown path ${pathname}`, responses: pick(gateway, '404') };
    const operation = child(paths[template], method.toLowerCase());
    if (!operation) return { where: `${method} on ${template}`, responses: pick(gateway, '405') };
    return { where: `${method} ${template}`, responses: child(operation, 'responses') ?? {} };
  }

  /** The gateway's answers that can come to any request (a request it cannot pass on). */
  const anywhere = Object.fromEntries(
    Object.entries(gateway).filter(([, r]) => isObject(r) && r['x-when'] === 'any-request'),
  );

  return (observed) => {
    const { where, responses } = responsesFor(observed.method, observed.url);
    const status = String(observed.status);
    const candidates = [child(responses, status), child(anywhere, status)].filter(
      (r): r is JsonObject => r !== undefined,
    );
    if (!candidates.length) return [`${where}: status ${observed.status} is not documented`];
    const outcomes = candidates.map((response) => [
      ...checkHeaders(response, observed, compile),
      ...checkBody(response, observed, compile),
    ]);
    if (outcomes.some((problems) => problems.length === 0)) return [];
    return (outcomes[0] ?? []).map((p) => `${where} ${observed.status}: ${p}`);
  };
}

function pick(responses: JsonObject, status: string): JsonObject {
  const response = responses[status];
  return response === undefined ? {} : { [status]: response };
}

function checkHeaders(
  response: JsonObject,
  observed: ObservedResponse,
  compile: (s: JsonObject) => ValidateFunction,
): string[] {
  const documented = new Map(
    Object.entries(child(response, 'headers') ?? {}).map(([name, header]) => [name.toLowerCase(), header]),
  );
  const problems: string[] = [];
  observed.headers.forEach((value, name) => {
    if (TRANSPORT_HEADERS.has(name) || name === 'content-type') return;
    const header = documented.get(name);
    if (!isObject(header)) return void problems.push(`header ${name} is not documented`);
    const schema = child(header, 'schema') ?? {};
    const typed = schema.type === 'integer' ? (/^-?\d+$/.test(value) ? Number(value) : value) : value;
    const validate = compile(schema);
    if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${ajvText(validate)}`);
  });
  for (const [name, header] of documented) {
    if (isObject(header) && header.required === true && !observed.headers.has(name))
      problems.push(`required header ${name} is missing`);
  }
  return problems;
}

function checkBody(
  response: JsonObject,
  observed: ObservedResponse,
  compile: (s: JsonObject) => ValidateFunction,
): string[] {
  const content = child(response, 'content');
  const contentType = observed.headers.get('content-type');
  if (!content) {
    if (observed.body !== '' || contentType !== null) return ['a body was sent where none is documented'];
    return [];
  }
  const mediaType = contentType?.split(';')[0]?.trim() ?? '';
  const media = child(content, mediaType);
  if (!media) return [`content type ${JSON.stringify(contentType)} is not documented`];
  let body: unknown;
  try {
    body = JSON.parse(observed.body);
  } catch {
    return [`body is not JSON: ${observed.body.slice(0, 80)}`];
  }
  const validate = compile(child(media, 'schema') ?? {});
  return validate(body) ? [] : [`body ${ajvText(validate)}`];
}

function ajvText(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('; ');
}
