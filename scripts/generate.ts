// `npm run generate`: rewrites every generated file and docs block (scripts/generate-artifacts.ts)
// from the declarations, and says which changed.
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../infra/functions';
import { GENERATED, generatedText } from './generate-artifacts';

for (const artifact of GENERATED) {
  const { current, wanted } = generatedText(artifact);
  if (current === wanted) {
    console.log(`${artifact.file}: up to date`);
  } else {
    writeFileSync(path.join(REPO_ROOT, artifact.file), wanted);
    console.log(`${artifact.file}: rewritten`);
  }
}
