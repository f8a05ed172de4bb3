// Every generated file and docs block is what `npm run generate` writes from the declarations today.
import { blockIn, withBlocks } from '../../scripts/generate-blocks';
import { GENERATE_COMMAND, GENERATED, generatedText } from '../../scripts/generate-artifacts';

test.each(GENERATED)(`$file is up to date (run \`${GENERATE_COMMAND}\` after changing a declaration)`, (artifact) => {
  const { current, wanted } = generatedText(artifact);
  expect(current).toBe(wanted);
});

test('a page without its markers is refused, not silently left stale', () => {
  expect(() => withBlocks('# Rate limits\n\n| a | b |\n', { 'generated:plans': '| c |\n' })).toThrow(
    '<!-- generated:plans -->',
  );
});

test("a block's content is replaced, and the hand-written text around it kept", () => {
  const page = 'Before.\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nAfter.\n';
  const rewritten = withBlocks(page, { 'generated:x': 'new $& $1\n' });
  expect(rewritten).toBe('Before.\n<!-- generated:x -->\nnew $& $1\n<!-- /generated:x -->\nAfter.\n');
  expect(blockIn(rewritten, 'generated:x')).toBe('new $& $1\n');
});
