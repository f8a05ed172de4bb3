/** The service's name in logs and traces: the CDK stack sets it, the logger falls back to it. */
export const SERVICE_NAME = 'store-orders';
