/**
 * The one IAM action a function that reads a secret at run time (lib/root/secrets.ts) is granted, on
 * that secret alone.
 */
export const SECRET_READ_ACTION = 'secretsmanager:GetSecretValue';
