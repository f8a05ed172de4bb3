// The documentation's link check. Markdown is read by markdown-it (CommonMark: code blocks and spans,
// wrapped link text, reference links) and heading anchors are made by github-slugger (GitHub's own
// algorithm); what is checked is the repository's rule: a relative link names a file inside it, an
// anchor a heading of the file, and only http(s) links leave it. remark-validate-links would check
// the same, but it and its dependencies are ES modules only, which this jest setup does not load,
// and it needs remark's file-set engine to see the headings of other files.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';

/** A link as written in a Markdown file, with the line it starts on (1-based). */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** How the checker reads files; the real file system by default, an in-memory tree in its own tests. */
export interface FileAccess {
  read(file: string): string;
  exists(file: string): boolean;
}

const DISK: FileAccess = { read: (file) => readFileSync(file, 'utf8'), exists: existsSync };

const markdown = new MarkdownIt();
// markdown-it drops file:, javascript: and similar links as unsafe; the check wants to see them.
markdown.validateLink = () => true;

type Token = ReturnType<typeof markdown.parse>[number];

/** Every link and image that renders (inline or by reference), in order, outside code. */
export function markdownLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  // A table cell's inline token has no line map of its own: its row's (the last block seen) holds.
  let blockLine = 1;
  for (const block of markdown.parse(text, {})) {
    if (block.map) blockLine = block.map[0] + 1;
    if (block.type !== 'inline') continue;
    let line = blockLine;
    for (const token of block.children ?? []) {
      if (token.type === 'softbreak' || token.type === 'hardbreak') line++;
      const target =
        token.type === 'link_open' ? token.attrGet('href') : token.type === 'image' ? token.attrGet('src') : null;
      if (target !== null) links.push({ target: String(target), line });
    }
  }
  return links;
}

/** A heading's text as GitHub slugs it: its text and code, without markup. */
function plainText(tokens: readonly Token[]): string {
  return tokens.map((token) => (token.type === 'text' || token.type === 'code_inline' ? token.content : '')).join('');
}

/** The anchors GitHub gives a file's headings (a repeated one gets `-1`, `-2`...). */
export function headingSlugs(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const tokens = markdown.parse(text, {});
  const slugs = new Set<string>();
  tokens.forEach((token, i) => {
    const inline = tokens[i + 1];
    if (token.type === 'heading_open' && inline?.type === 'inline')
      slugs.add(slugger.slug(plainText(inline.children ?? [])));
  });
  return slugs;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Problems with the links of the given Markdown files (paths relative to root), one line each:
 * a relative link must name a file or folder inside root that exists, and a `#anchor` into a
 * Markdown file (or within the same file) a heading of it. Links to other sites may only be http(s).
 */
export function linkProblems(root: string, files: readonly string[], access: FileAccess = DISK): string[] {
  const problems: string[] = [];
  const slugsOf = new Map<string, Set<string>>();
  const slugs = (file: string) => {
    let found = slugsOf.get(file);
    if (!found) slugsOf.set(file, (found = headingSlugs(access.read(file))));
    return found;
  };
  for (const file of files) {
    const absolute = path.resolve(root, file);
    for (const { target, line } of markdownLinks(access.read(absolute))) {
      const where = `${file}:${line}: ${target}`;
      if (SCHEME.test(target)) {
        if (!/^https?:\/\//i.test(target)) problems.push(`${where}: only http(s) links may leave the repository`);
        continue;
      }
      const hash = target.indexOf('#');
      const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      if (pathPart.startsWith('/')) {
        problems.push(`${where}: write links relative to the file, not from /`);
        continue;
      }
      const resolved = pathPart === '' ? absolute : path.resolve(path.dirname(absolute), pathPart);
      const inside = path.relative(path.resolve(root), resolved);
      if (inside.startsWith('..') || path.isAbsolute(inside)) {
        problems.push(`${where}: points outside the repository`);
        continue;
      }
      if (!access.exists(resolved)) {
        problems.push(`${where}: no such file`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && !slugs(resolved).has(anchor)) {
        problems.push(`${where}: no heading with the anchor #${anchor}`);
      }
    }
  }
  return problems;
}
