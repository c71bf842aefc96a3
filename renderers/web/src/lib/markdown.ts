/**
 * Markdown from the agent, as HTML safe to insert: markdown-it with raw HTML off (so any tag
 * in the text is shown as text, never parsed), its own link check (no `javascript:` URLs),
 * and links opening in a new tab.
 */

import MarkdownIt from "markdown-it";

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false });

const defaultLinkOpen =
  markdown.renderer.rules.link_open ??
  ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));

markdown.renderer.rules.link_open = (tokens, index, options, env, self) => {
  const token = tokens[index];
  if (token !== undefined) {
    token.attrSet("target", "_blank");
    token.attrSet("rel", "noopener noreferrer");
  }
  return defaultLinkOpen(tokens, index, options, env, self);
};

/** `text` as HTML; `streaming`: the text is still arriving, so its unclosed marks are
 * closed first (`closeOpenMarks`) instead of showing raw until their end comes. */
export function renderMarkdown(text: string, streaming = false): string {
  return markdown.render(streaming ? closeOpenMarks(text) : text);
}

const FENCE = /^ {0,3}(```|~~~)/;

/**
 * Markdown cut off mid-way, made whole for drawing: an open code fence is closed, and in the
 * paragraph being written an unclosed `**` or inline code is closed and a link whose URL has
 * not finished is left out until it has. What is complete is never changed.
 */
export function closeOpenMarks(text: string): string {
  const lines = text.split("\n");
  let fence: string | null = null;
  for (const line of lines) {
    const mark = FENCE.exec(line)?.[1];
    if (mark !== undefined && (fence === null || mark === fence)) fence = fence === null ? mark : null;
  }
  if (fence !== null) return `${text}\n${fence}`;
  const start = text.lastIndexOf("\n\n") + 1;
  let tail = text.slice(start).replace(/\[[^\]\n]*\]\([^)\s]*$/, "");
  const code = (tail.match(/`/g) ?? []).length;
  if (code % 2 === 1) tail += "`";
  const outsideCode = tail.replace(/`[^`]*`/g, "");
  if ((outsideCode.match(/\*\*/g) ?? []).length % 2 === 1) tail += "**";
  return text.slice(0, start) + tail;
}
