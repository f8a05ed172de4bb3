import { listOrdersHandler } from '../lib/root/handlers';
import { wiringFromEnv } from '../lib/root/wiring';

export const handler = listOrdersHandler(wiringFromEnv());
