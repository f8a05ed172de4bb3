// Jest transform: esbuild turns TypeScript and the ESM-only packages (middy 7) into CommonJS.
// Type checking is `tsc --noEmit`, run before jest by `npm test`.
const { transformSync } = require('esbuild');

module.exports = {
  process(source, filename) {
    const loader = filename.endsWith('.ts') ? 'ts' : 'js';
    const { code, map } = transformSync(source, {
      loader,
      format: 'cjs',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: filename,
    });
    return { code, map };
  },
};
