import { webhookFanoutHandler } from '../lib/root/handlers';
import { wiringFromEnv } from '../lib/root/wiring';

export const handler = webhookFanoutHandler(wiringFromEnv());
