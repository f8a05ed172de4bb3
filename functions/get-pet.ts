import { getPetHandler } from '../lib/root/handlers';
import { wiringFromEnv } from '../lib/root/wiring';

export const handler = getPetHandler(wiringFromEnv());
