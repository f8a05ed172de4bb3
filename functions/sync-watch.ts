import { syncWatchHandler } from '../lib/root/handlers';
import { wiringFromEnv } from '../lib/root/wiring';

export const handler = syncWatchHandler(wiringFromEnv());
