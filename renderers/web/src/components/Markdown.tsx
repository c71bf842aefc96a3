import { memo, useMemo } from "react";

import { renderMarkdown } from "@/lib/markdown";

/** Agent text drawn as Markdown (raw HTML in it stays text); `streaming` while it arrives. */
export const Markdown = memo(function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  const html = useMemo(() => renderMarkdown(text, streaming), [text, streaming]);
  return <div className="prose-chat" dangerouslySetInnerHTML={{ __html: html }} />;
});
