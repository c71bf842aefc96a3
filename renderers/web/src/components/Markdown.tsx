import { memo, useMemo } from "react";

import { renderMarkdown } from "@/lib/markdown";

/** Agent text drawn as Markdown (raw HTML in it stays text). */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div className="prose-chat" dangerouslySetInnerHTML={{ __html: html }} />;
});
