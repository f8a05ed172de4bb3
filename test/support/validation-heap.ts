// CDK's built-in template validation runs @aws/cloudformation-validate, a WebAssembly engine that
// aws-cdk-lib keeps in its own node_modules. Loading its schemas, the engine grows its memory some
// 600 times, a few pages at a time, and V8 answers each grow with a full garbage collection
// (external memory pressure): about 6 of the 8 CPU-seconds the engine's start costs. One large
// allocation made and freed first leaves the engine's allocator (dlmalloc, which never gives
// memory back) room for most of it, so the memory grows a few times only. The engine, its rules
// and its findings are the same; only fewer collections run.
import * as path from 'node:path';

/** What this file uses of the package (its own types are not reachable from here). */
interface CloudFormationValidate {
  TemplateModel: new (template: unknown) => { free(): void };
  TemplateContent: new (content: Uint8Array, name: string) => unknown;
}

/**
 * Measured: 128 MiB leaves the engine's start a few grows (1 CPU-second instead of 8, plus 2 to copy
 * the bytes in); 96 MiB leaves many, and more than 128 costs more to copy than it saves.
 */
const PRESIZE_BYTES = 128 * 1024 * 1024;

let presized = false;

/**
 * Grows the validation engine's memory once, before its first use in this process. The package
 * is required through jest's module registry, as aws-cdk-lib requires it, so the instance warmed
 * is the one the validation uses.
 */
export function presizeValidationHeap(): void {
  if (presized) return;
  presized = true;
  const cdkDir = path.dirname(require.resolve('aws-cdk-lib/package.json'));
  const file = require.resolve('@aws/cloudformation-validate', { paths: [cdkDir] });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const validate = require(file) as CloudFormationValidate;
  // The bytes are copied into the engine's memory before it reads them; it then refuses a template
  // this large and frees them.
  try {
    new validate.TemplateModel(new validate.TemplateContent(new Uint8Array(PRESIZE_BYTES), 'presize.json')).free();
  } catch (error: unknown) {
    // The engine reports it as a plain string; anything else is a real failure.
    const message = typeof error === 'string' ? error : error instanceof Error ? error.message : '';
    if (!/exceeds maximum size/.test(message)) throw error;
  }
}
