import { listOrdersV2Handler } from '../lib/root/handlers';
import { cursorKeysReadAtInit } from '../lib/root/cursor-key';
import { wiringFromEnv } from '../lib/root/wiring';

const cursorKeys = await cursorKeysReadAtInit();

export const handler = listOrdersV2Handler({ ...wiringFromEnv(), ...(cursorKeys ? { cursorKey: cursorKeys } : {}) });
