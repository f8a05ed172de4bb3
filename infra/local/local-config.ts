import { tableNamesWithPrefix } from './create-tables';

/** Table names of the local stack; the admin command uses them too unless told otherwise. */
export const LOCAL_TABLES = tableNamesWithPrefix('store-orders-local');
export const LOCAL_DYNAMODB_ENDPOINT = 'http://127.0.0.1:8000';
