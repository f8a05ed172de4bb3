import { listOrdersV2Handler } from '../lib/root/handlers';
import { wiringFromEnv } from '../lib/root/wiring';

export const handler = listOrdersV2Handler(wiringFromEnv());
