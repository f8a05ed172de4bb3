// Checks the records of an import file (orders or pets), element by element as
// tools/admin/json-array-elements.ts reads them. Every element is checked and every problem counted,
// so one run shows what needs fixing; the caller writes nothing unless the whole file is valid.
// Memory holds one element, the first problems, and 8 bytes per record for the duplicate-id check:
// never the file.

import { createReadStream } from 'node:fs';
import type { Order } from '../../lib/contract/order';
import type { Pet } from '../../lib/contract/pet';
import { int64 } from './json-record';
import { checkOrder } from './order-record';
import { checkPet } from './pet-record';
import { ElementReader, ORDER_NOUN, type Element, type ImportNoun } from './json-array-elements';
import { shownWords } from '../shared/shown-input';

/** One kind of record an import writes: what it is called, and what a valid one is (lib/core). */
export interface ImportKind<T extends { id: string }> {
  noun: ImportNoun;
  check(value: unknown, at: string, problems: string[]): T | undefined;
}

export const ORDER_IMPORT: ImportKind<Order> = { noun: ORDER_NOUN, check: checkOrder };
export const PET_IMPORT: ImportKind<Pet> = { noun: { one: 'pet', many: 'pets' }, check: checkPet };

/** Problems listed one per line; past these only their number is said. */
const MAX_SHOWN_PROBLEMS = 100;

/** An element as a record, or what is wrong with it (echoed input shortened); its id whenever it has a valid one. */
export function checkElement<T extends { id: string }>(
  kind: ImportKind<T>,
  element: Element,
): { record?: T; id?: string; problems: string[] } {
  const at = `${kind.noun.many}[${element.index}]`;
  if (!('value' in element)) return { problems: [`${at}: ${element.problem}`] };
  const problems: string[] = [];
  const record = kind.check(element.value, at, problems);
  const id = int64((element.value as { id?: unknown } | null)?.id);
  return { ...(record ? { record } : {}), ...(id !== undefined ? { id } : {}), problems: problems.map(shownWords) };
}

/** The elements of the JSON array in `file`, read a chunk at a time; read errors are thrown as they come. */
export async function* fileElements(
  file: string,
  signal: AbortSignal | undefined,
  noun: ImportNoun,
): AsyncGenerator<Element> {
  const reader = new ElementReader(noun);
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (signal?.aborted) return;
      yield* reader.feed(chunk);
    }
    yield* reader.end();
  } finally {
    stream.destroy();
  }
}

/** The ids of a file, 8 bytes each: a sorted copy shows any id given twice. */
class IdList {
  private ids = new BigInt64Array(1024);
  private size = 0;

  add(id: string): void {
    if (this.size === this.ids.length) {
      const grown = new BigInt64Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.size++] = BigInt(id);
  }

  /** Every id that occurs more than once, as canonical text. */
  repeated(): Set<string> {
    const sorted = this.ids.subarray(0, this.size).sort();
    const repeated = new Set<string>();
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) repeated.add(String(sorted[i]));
    return repeated;
  }
}

/** The first problems of a file, and how many there are in all. */
export class Problems {
  readonly shown: string[] = [];
  count = 0;

  add(problems: readonly string[]): void {
    for (const problem of problems) {
      if (this.shown.length < MAX_SHOWN_PROBLEMS) this.shown.push(problem);
      this.count++;
    }
  }
}

export interface FileCheck {
  /** Elements read, valid or not. */
  count: number;
  problems: Problems;
  /** True when Ctrl-C stopped the check. */
  interrupted: boolean;
}

/** Reads the whole file once, checking every element; the orders themselves are not kept. */
export async function checkImportFile<T extends { id: string }>(
  file: string,
  signal: AbortSignal | undefined,
  kind: ImportKind<T>,
): Promise<FileCheck> {
  const problems = new Problems();
  const ids = new IdList();
  let count = 0;
  for await (const element of fileElements(file, signal, kind.noun)) {
    count++;
    const checked = checkElement(kind, element);
    problems.add(checked.problems);
    if (checked.id !== undefined) ids.add(checked.id);
  }
  if (signal?.aborted) return { count, problems, interrupted: true };
  const repeated = ids.repeated();
  if (repeated.size > 0) {
    // Rare, and a mistake: a second read finds where each repeated id first occurs.
    const first = new Map<string, number>();
    for await (const element of fileElements(file, signal, kind.noun)) {
      const { id } = checkElement(kind, element);
      if (id === undefined || !repeated.has(id)) continue;
      const seen = first.get(id);
      if (seen === undefined) first.set(id, element.index);
      else problems.add([`${kind.noun.many}[${element.index}].id: ${id} is also the id of ${kind.noun.many}[${seen}]`]);
    }
  }
  return { count, problems, interrupted: signal?.aborted ?? false };
}
