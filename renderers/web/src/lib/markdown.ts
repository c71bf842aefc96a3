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

export function renderMarkdown(text: string): string {
  return markdown.render(text);
}
