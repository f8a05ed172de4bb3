import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { GATEWAY_RESPONSES, gatewayResponse, type GatewayResponseType } from '../../lib/contract/gateway-responses';

/** API Gateway wants static header values as quoted literals. */
export function literal(value: string): string {
  if (value.includes("'")) throw new Error(`A header literal cannot contain a quote: ${value}`);
  return `'${value}'`;
}

/**
 * Gateway response templates are Velocity; an Error body with `$` or `#` would be evaluated
 * rather than sent as written.
 */
export function velocitySafe(body: string): string {
  if (/[$#]/.test(body)) throw new Error(`Error body would be read as a Velocity template: ${body}`);
  return body;
}

/** Every answer API Gateway gives on its own, from the table in lib/contract/gateway-responses.ts. */
export function addGatewayResponses(api: RestApi): void {
  for (const type of Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[]) {
    const response = gatewayResponse(type);
    api.addGatewayResponse(`GatewayResponse${type}`, {
      type: ResponseType.of(type),
      statusCode: String(response.statusCode),
      responseHeaders: Object.fromEntries(
        Object.entries(response.headers).map(([name, value]) => [name, literal(value)]),
      ),
      templates: { 'application/json': velocitySafe(response.body) },
    });
  }
}
