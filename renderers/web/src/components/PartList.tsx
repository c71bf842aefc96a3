import { FileIcon, FileQuestion, MousePointerClick } from "lucide-react";
import { memo } from "react";

import { Markdown } from "@/components/Markdown";
import type { PartView } from "@/model/timeline";

/** A message's or artifact's parts; neighbouring text parts read as one Markdown text
 * (`streaming`: an answer still arriving, its unclosed marks drawn closed). */
export const PartList = memo(function PartList({
  parts,
  streaming = false,
}: {
  parts: readonly PartView[];
  streaming?: boolean;
}) {
  const blocks: PartView[] = [];
  for (const part of parts) {
    const last = blocks[blocks.length - 1];
    if (part.kind === "markdown" && last?.kind === "markdown") {
      blocks[blocks.length - 1] = { kind: "markdown", text: last.text + part.text };
    } else blocks.push(part);
  }
  return (
    <div className="flex flex-col gap-2">
      {blocks.map((part, i) => (
        <PartBlock key={i} part={part} streaming={streaming && i === blocks.length - 1} />
      ))}
    </div>
  );
});

function PartBlock({ part, streaming }: { part: PartView; streaming: boolean }) {
  switch (part.kind) {
    case "markdown":
      return <Markdown text={part.text} streaming={streaming} />;
    case "json":
      return (
        <pre className="max-h-80 overflow-auto rounded-md bg-muted p-3 font-mono text-xs" data-part="json">
          {part.mediaType && <span className="mb-1 block text-muted-foreground">{part.mediaType}</span>}
          {JSON.stringify(part.data, null, 2)}
        </pre>
      );
    case "file":
      return (
        <div className="flex items-center gap-2 rounded-md border px-3 py-2 text-sm" data-part="file">
          <FileIcon className="text-muted-foreground" aria-hidden />
          {part.url ? (
            <a href={part.url} target="_blank" rel="noopener noreferrer" className="underline underline-offset-2">
              {part.name || "file"}
            </a>
          ) : (
            <span>{part.name || "file"}</span>
          )}
          <span className="text-xs text-muted-foreground">
            {part.mediaType || "unknown type"}
            {part.size !== null && ` · ${part.size} bytes`}
          </span>
        </div>
      );
    case "action":
      return (
        <span className="inline-flex items-center gap-1.5 text-sm" data-part="action">
          <MousePointerClick className="size-3.5" aria-hidden />
          <span className="font-medium">{part.name}</span>
          {Object.entries(part.context).map(([key, value]) => (
            <span key={key} className="opacity-80">
              {key}: {typeof value === "string" ? value : JSON.stringify(value)}
            </span>
          ))}
        </span>
      );
    case "placeholder":
      return (
        <div
          className="flex items-center gap-2 rounded-md border border-dashed px-3 py-2 text-sm text-muted-foreground"
          data-part="placeholder"
        >
          <FileQuestion aria-hidden />
          Cannot show this {part.content} part ({part.mediaType || "no media type"}).
        </div>
      );
  }
}
