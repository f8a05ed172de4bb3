// Key scopes, declared once: what a key may call. The authorizer turns a key's scope into its
// policy, the admin command stores and shows it, and the OpenAPI document lists the refusal under
// every operation a scope leaves out.
import type { HttpMethod } from './routes';

export const KEY_SCOPES = ['full', 'read'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** Keys made before scopes existed carry no scope attribute: they keep full access. */
export const DEFAULT_KEY_SCOPE: KeyScope = 'full';

/** The methods each scope may call; `undefined` means every method. */
export const SCOPE_METHODS: Record<KeyScope, readonly HttpMethod[] | undefined> = {
  full: undefined,
  read: ['GET'],
};

export function isKeyScope(value: unknown): value is KeyScope {
  return typeof value === 'string' && (KEY_SCOPES as readonly string[]).includes(value);
}

export function scopeAllows(scope: KeyScope, method: string): boolean {
  const methods = SCOPE_METHODS[scope];
  return methods === undefined || (methods as readonly string[]).includes(method);
}

/** The scopes that may not call `method`: an operation with any lists the refusal. */
export function scopesRefusing(method: HttpMethod): KeyScope[] {
  return KEY_SCOPES.filter((scope) => !scopeAllows(scope, method));
}
