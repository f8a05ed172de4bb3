import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

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

const FENCE = /^ {0,3}(```|~~~)/;

/**
 * Blanks fenced code blocks and code spans, keeping every newline, so that neither links nor
 * headings are found inside code and line numbers stay right.
 */
function withoutCode(text: string): string {
  let inFence: string | undefined;
  const lines = text.split('\n').map((line) => {
    const fence = FENCE.exec(line)?.[1];
    if (inFence) {
      if (fence === inFence) inFence = undefined;
      return '';
    }
    if (fence) {
      inFence = fence;
      return '';
    }
    return line;
  });
  return lines.join('\n').replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '));
}

// Inline links and images, whose text may hold one level of brackets and wrap across lines; the
// destination may be in angle brackets and be followed by a title.
const INLINE_LINK =
  /!?\[((?:[^[\]]|\[[^\]]*\])*)\]\(\s*(<[^>\n]*>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*(<[^>\n]*>|\S+)/gm;

/** Every inline link, image and reference definition outside code. */
export function markdownLinks(text: string): MarkdownLink[] {
  const plain = withoutCode(text);
  const lineAt = (index: number) => plain.slice(0, index).split('\n').length;
  const links: MarkdownLink[] = [];
  for (const pattern of [INLINE_LINK, REFERENCE_DEFINITION]) {
    for (const match of plain.matchAll(pattern)) {
      const raw = match[pattern === INLINE_LINK ? 2 : 1] ?? '';
      links.push({ target: raw.replace(/^<|>$/g, ''), line: lineAt(match.index ?? 0) });
    }
  }
  return links.sort((a, b) => a.line - b.line);
}

/**
 * The anchors GitHub gives a file's headings: the heading's text without inline markup, lower
 * case, punctuation dropped (letters, digits, spaces, `-` and `_` kept), spaces turned into `-`;
 * a repeated slug gets `-1`, `-2`...
 */
export function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  const lines = withoutCodeBlocks(text);
  for (const line of lines) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** Lines outside fenced code blocks; code spans are kept, since a heading's code is part of its slug. */
function withoutCodeBlocks(text: string): string[] {
  let inFence: string | undefined;
  return text.split('\n').filter((line) => {
    const fence = FENCE.exec(line)?.[1];
    if (inFence) {
      if (fence === inFence) inFence = undefined;
      return false;
    }
    if (fence) inFence = fence;
    return !fence;
  });
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
