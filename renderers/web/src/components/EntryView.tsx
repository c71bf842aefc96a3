import { Bot, KeyRound, MessageCircleQuestion, Package } from "lucide-react";
import { memo } from "react";

import { A2uiSurfaceEntry } from "@/components/A2ui";
import { CallView } from "@/components/CallView";
import { PartList } from "@/components/PartList";
import { cn } from "@/lib/utils";
import type { Entry } from "@/model/timeline";

/** One block of the conversation: a bubble for people, open text for the agent. */
export const EntryView = memo(function EntryView({ entry }: { entry: Entry }) {
  switch (entry.kind) {
    case "user":
      return (
        <div className="flex justify-end" data-entry="user">
          <div
            className={cn(
              "max-w-[85%] rounded-2xl rounded-br-md bg-primary px-4 py-2 text-primary-foreground",
              entry.pending && "opacity-60",
            )}
          >
            <PartList parts={entry.parts} />
          </div>
        </div>
      );
    case "call":
      return entry.call === null ? null : <CallView call={entry.call} />;
    case "surface":
      return (
        <div data-entry="surface">
          <A2uiSurfaceEntry surfaceId={entry.surfaceId} />
        </div>
      );
    case "artifact":
      return (
        <div className="rounded-xl border bg-card p-4" data-entry="artifact">
          <div className="mb-2 flex items-center gap-2 text-xs text-muted-foreground">
            <Package className="size-3.5" aria-hidden />
            <span>{entry.name || "Result"}</span>
            {!entry.complete && <span className="animate-pulse">· streaming</span>}
          </div>
          <PartList parts={entry.parts} streaming={!entry.complete} />
        </div>
      );
    default:
      return <AgentEntry entry={entry} />;
  }
});

const MARKS = {
  agent: { icon: Bot, label: "" },
  final: { icon: Bot, label: "" },
  question: { icon: MessageCircleQuestion, label: "Question" },
  auth: { icon: KeyRound, label: "Needs authorization" },
} as const;

function AgentEntry({ entry }: { entry: Entry }) {
  const mark = MARKS[entry.kind as keyof typeof MARKS];
  const Icon = mark.icon;
  const asking = entry.kind === "question" || entry.kind === "auth";
  return (
    <div className="flex gap-3" data-entry={entry.kind}>
      <div className="mt-0.5 flex size-7 shrink-0 items-center justify-center rounded-full border bg-background">
        <Icon className="size-3.5 text-muted-foreground" aria-hidden />
      </div>
      <div className={cn("min-w-0 flex-1", asking && "rounded-xl border border-waiting/50 bg-waiting/5 px-4 py-3")}>
        {mark.label && <p className="mb-1 text-xs font-medium text-waiting">{mark.label}</p>}
        <PartList parts={entry.parts} />
        {entry.options.length > 0 && entry.kind !== "question" && (
          <p className="mt-2 text-xs text-muted-foreground">Options: {entry.options.join(", ")}</p>
        )}
      </div>
    </div>
  );
}
