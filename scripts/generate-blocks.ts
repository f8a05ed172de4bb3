// The generated blocks of a Markdown page: the lines between `<!-- <name> -->` and `<!-- /<name> -->`
// (e.g. `generated:plans`, or the bench's `bench:figures`). The rest of the page is written by hand.

const blockPattern = (name: string) => new RegExp(`(?<=<!-- ${name} -->\n)[^]*?(?=<!-- /${name} -->)`);

/** The content of block `name` in `text`, up to its last newline; throws when its markers are missing. */
export function blockIn(text: string, name: string): string {
  const found = blockPattern(name).exec(text)?.[0];
  // A page that lost its markers would otherwise be left stale without a word.
  if (found === undefined) throw new Error(`No <!-- ${name} --> ... <!-- /${name} --> block`);
  return found;
}

/** `text` with each named block's content replaced (each content ends with a newline). */
export function withBlocks(text: string, contents: Readonly<Record<string, string>>): string {
  return Object.entries(contents).reduce((page, [name, content]) => {
    blockIn(page, name);
    return page.replace(blockPattern(name), () => content);
  }, text);
}
