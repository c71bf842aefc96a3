import { memo, useEffect, useRef } from "react";

import { EntryView } from "@/components/EntryView";
import type { Entry } from "@/model/timeline";

/**
 * The open task's conversation. It keeps to the bottom while new blocks arrive, unless the
 * person has scrolled up to read.
 */
export const Conversation = memo(function Conversation({
  entries,
  working,
}: {
  entries: readonly Entry[];
  working: boolean;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  useEffect(() => {
    const box = scroller.current;
    if (box !== null && pinned.current) box.scrollTop = box.scrollHeight;
  }, [entries, working]);

  return (
    <div
      ref={scroller}
      className="min-h-0 flex-1 overflow-y-auto"
      onScroll={(event) => {
        const box = event.currentTarget;
        pinned.current = box.scrollHeight - box.scrollTop - box.clientHeight < 48;
      }}
      role="log"
      aria-label="Conversation"
      aria-live="polite"
    >
      <div className="mx-auto flex max-w-3xl flex-col gap-5 px-4 py-6">
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
  );
});
