import { webhookDeliveryHandler } from '../lib/root/handlers';
import { wiringFromEnv } from '../lib/root/wiring';

export const handler = webhookDeliveryHandler(wiringFromEnv());
