import { ArrowDown } from "lucide-react";
import { memo } from "react";
import { useStickToBottom } from "use-stick-to-bottom";

import { EntryView } from "@/components/EntryView";
import { Button } from "@/components/ui/button";
import type { Entry } from "@/model/timeline";

/**
 * The open task's conversation. It sticks to the bottom while it grows (new blocks, an answer
 * streaming in, a surface drawn), unless the person has scrolled up to read; then a button
 * takes them back down (`use-stick-to-bottom`, as AI Elements' Conversation does).
 */
export const Conversation = memo(function Conversation({
  entries,
  working,
}: {
  entries: readonly Entry[];
  working: boolean;
}) {
  const { scrollRef, contentRef, isAtBottom, scrollToBottom } = useStickToBottom({
    initial: "instant",
    resize: "instant",
  });

  return (
    <div className="relative flex min-h-0 flex-1 flex-col">
      <div ref={scrollRef} className="min-h-0 flex-1 overflow-y-auto" role="log" aria-label="Conversation" aria-live="polite">
        <div ref={contentRef} className="mx-auto flex max-w-3xl flex-col gap-5 px-4 py-6">
          {entries.map((entry) => (
            <EntryView key={entry.id} entry={entry} />
          ))}
          {working && (
            <div className="flex items-center gap-2 pl-10 text-sm text-muted-foreground" data-working>
              <span className="size-1.5 animate-pulse rounded-full bg-busy" />
              <span className="size-1.5 animate-pulse rounded-full bg-busy [animation-delay:150ms]" />
              <span className="size-1.5 animate-pulse rounded-full bg-busy [animation-delay:300ms]" />
              <span className="sr-only">The agent is working</span>
            </div>
          )}
        </div>
      </div>
      {!isAtBottom && (
        <Button
          variant="outline"
          size="sm"
          className="absolute bottom-3 left-1/2 -translate-x-1/2 rounded-full shadow-md"
          onClick={() => void scrollToBottom()}
          aria-label="Scroll to the newest"
        >
          <ArrowDown className="size-3.5" /> Newest
        </Button>
      )}
    </div>
  );
});
