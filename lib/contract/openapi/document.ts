import { ERROR_CODES, ERRORS, type ErrorCode } from '../errors';
import { ADDRESS_RETRY_AFTER_SECONDS } from '../address-limit';
import { apiDescription } from './description';
import {
  COMMON_ERROR_CODES,
  GATEWAY_ANY_REQUEST_CODES,
  GATEWAY_ERROR_CODES,
  OPERATION_CONTRACTS,
  PATH_PARAMETERS,
} from '../operations';
import type { OperationContract } from '../operation-contract';
import { errorResponse, operationResponses } from './responses';
import { errorSchema, orderSchema, petSchema, type JsonObject } from './schemas';
import { API_VERSION, BASE_PATH, pathParameterNames, ROUTES, type Route } from '../routes';
import { scopesRefusing } from '../scopes';

/** What differs between the v1 document and another version's: its prefix, version, text and Order. */
export interface Edition {
  basePath: string;
  version: string;
  description(codes: readonly ErrorCode[]): string;
  orderSchema(): JsonObject;
  /** Extensions at the top of `info`, e.g. `x-stability`. */
  infoExtensions?: JsonObject;
}

export const V1_EDITION: Edition = {
  basePath: BASE_PATH,
  version: API_VERSION,
  description: apiDescription,
  orderSchema,
};

export type { JsonObject } from './schemas';

const TAG_DESCRIPTIONS: Record<string, string> = {
  orders: 'Store orders: list them all, cancel a pending one.',
  pets: "The Petstore's pets: deprecated, and removed at the sunset date the responses carry.",
  webhooks: "Where this key's order events go: endpoints it registers, each with a signing secret (Standard Webhooks).",
};

/**
 * The deployed stages' addresses are configuration (a custom domain or the execute-api host), so
 * they are server variables named as in the specification; each includes the `/v1` prefix.
 */
function servers(basePath: string): JsonObject[] {
  const placeholder = (name: string, stage: string, example: string): JsonObject => ({
    url: `{${name}}`,
    description: `${stage}: \`{${name}}\` of the specification, which includes the \`${basePath}\` prefix.`,
    variables: {
      [name]: {
        default: example,
        description: `The ${stage.toLowerCase()} address: https://<custom domain>${basePath}, or the stage's execute-api URL (which also ends in ${basePath}).`,
      },
    },
  });
  return [
    placeholder('base_url', 'Production', `https://api.example.com${basePath}`),
    placeholder('staging_url', 'Staging', `https://staging-api.example.com${basePath}`),
    {
      url: `http://127.0.0.1:{port}${basePath}`,
      description: 'The local stack (`npm start`).',
      variables: { port: { default: '3000', description: 'The port given to `npm start` (PORT).' } },
    },
  ];
}

function parameters(route: Route, contract: OperationContract): JsonObject[] {
  const inPath = pathParameterNames(route.path).map((name) => {
    const declared = PATH_PARAMETERS[name];
    if (!declared) throw new Error(`Path parameter ${name} of ${route.operationId} is not declared in PATH_PARAMETERS`);
    return { name, in: 'path', required: true, ...declared };
  });
  return [...inPath, ...(contract.queryParameters ?? [])];
}

function lifecycleNote(route: Route): string | undefined {
  if (!route.deprecated) return undefined;
  return `**Deprecated** since ${route.deprecated.since}; it stops working at ${route.deprecated.sunset} (see the \`Deprecation\` and \`Sunset\` headers).`;
}

/** A method some key scope leaves out can be refused 403 INSUFFICIENT_SCOPE, by the gateway. */
function scopeCodes(route: Route): ErrorCode[] {
  return scopesRefusing(route.method).length > 0 ? ['INSUFFICIENT_SCOPE'] : [];
}

function operation(route: Route, contract: OperationContract): JsonObject {
  const description = [contract.description, lifecycleNote(route)].filter(Boolean).join('\n\n');
  const params = parameters(route, contract);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(description ? { description } : {}),
    tags: [route.tag],
    ...(params.length ? { parameters: params } : {}),
    ...(contract.requestBody
      ? {
          requestBody: {
            description: contract.requestBody.description,
            required: true,
            content: {
              'application/json': { schema: contract.requestBody.schema, example: contract.requestBody.example },
            },
          },
        }
      : {}),
    responses: operationResponses(
      route,
      { ...contract, errors: [...contract.errors, ...scopeCodes(route)] },
      COMMON_ERROR_CODES,
      GATEWAY_ANY_REQUEST_CODES,
    ),
    ...(route.deprecated ? { deprecated: true } : {}),
    ...(route.stability !== 'stable' ? { 'x-stability': route.stability } : {}),
  };
}

/** When the gateway gives each of its own answers, in the words `x-when` uses. */
const GATEWAY_WHEN: Partial<Record<ErrorCode, string>> = {
  NOT_FOUND: 'unknown-path',
  METHOD_NOT_ALLOWED: 'unknown-method',
};

function gatewayResponses(): JsonObject {
  const responses: JsonObject = {};
  for (const code of GATEWAY_ERROR_CODES as ErrorCode[]) {
    const status = ERRORS[code].status;
    const headers: JsonObject =
      code === 'METHOD_NOT_ALLOWED'
        ? { Allow: { description: 'The methods the path has.', required: true, schema: { type: 'string' } } }
        : code === 'ADDRESS_RATE_LIMITED'
          ? {
              'Retry-After': {
                description: 'Seconds after which an address that sent nothing meanwhile is let through again.',
                required: true,
                schema: { type: 'integer', format: 'int32', const: ADDRESS_RETRY_AFTER_SECONDS },
              },
            }
          : {};
    responses[String(status)] = {
      ...errorResponse([code], status, headers),
      'x-when': GATEWAY_ANY_REQUEST_CODES.includes(code) ? 'any-request' : (GATEWAY_WHEN[code] ?? 'any-request'),
    };
  }
  return responses;
}

/**
 * The OpenAPI 3.1 document of the interface, built from the declarations in lib/ (routes, errors,
 * plans, the Order record) so that it cannot drift from what the service does. Routes are a
 * parameter so a test can prove the lifecycle markers with a fixture route.
 */
export function buildOpenApiDocument(
  routes: readonly Route[] = ROUTES,
  contracts: Record<string, OperationContract> = OPERATION_CONTRACTS,
  edition: Edition = V1_EDITION,
): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const seen = new Set<string>();
  for (const route of routes) {
    const contract = contracts[route.operationId];
    if (!contract) throw new Error(`Route ${route.operationId} has no operation contract`);
    if (seen.has(route.operationId)) throw new Error(`Duplicate operationId ${route.operationId}`);
    seen.add(route.operationId);
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route, contract) };
  }
  const tags = [...new Set(routes.map((r) => r.tag))].map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? `Operations tagged ${name}.`,
  }));
  const codes = documentedCodes(routes, contracts);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Store Orders API',
      version: edition.version,
      description: edition.description(codes),
      ...edition.infoExtensions,
    },
    servers: servers(edition.basePath),
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key (sok_…)',
          description: 'The API key as the bearer token: `Authorization: Bearer <API key>`.',
        },
      },
      schemas: {
        Order: edition.orderSchema(),
        // The Pet schema goes only where a route answers one (v1's deprecated pets route).
        ...(routes.some((route) => route.operationId === 'getPetById') ? { Pet: petSchema() } : {}),
        Error: errorSchema(codes),
      },
    },
    'x-gateway-responses': gatewayResponses(),
  };
}

/** The codes a document's answers can carry, in the catalogue's order: its Error enum and error table. */
function documentedCodes(routes: readonly Route[], contracts: Record<string, OperationContract>): ErrorCode[] {
  const used = new Set<ErrorCode>([...GATEWAY_ERROR_CODES, ...COMMON_ERROR_CODES]);
  for (const route of routes)
    for (const code of [...(contracts[route.operationId]?.errors ?? []), ...scopeCodes(route)]) used.add(code);
  return ERROR_CODES.filter((code) => used.has(code));
}

/** The document as committed in openapi.json and served by the local stack. */
export function openApiJson(document: JsonObject = buildOpenApiDocument()): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
