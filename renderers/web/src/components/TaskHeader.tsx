import { ChartGantt, Square } from "lucide-react";
import { useState } from "react";

import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { isFinal, stateLabel } from "@/model/states";
import type { TaskView } from "@/model/timeline";

/**
 * The open task's title and state, the button that shows its calls' timeline, and the way to
 * cancel it (asked twice) while it runs.
 */
export function TaskHeader({
  view,
  title,
  onCancel,
  timeline,
  onTimeline,
}: {
  view: TaskView;
  title: string;
  onCancel: () => void;
  timeline: boolean;
  onTimeline: () => void;
}) {
  const [label, tone] = stateLabel(view.state);
  const [asking, setAsking] = useState(false);
  const running = view.taskId !== "" && !isFinal(view.state);
  return (
    <div className="flex min-h-14 flex-wrap items-center gap-x-3 gap-y-2 border-b px-4 py-2.5">
      <div className="min-w-0 flex-1">
        <p className="truncate text-sm font-medium">{title}</p>
        <p className="truncate font-mono text-xs text-muted-foreground">{view.taskId}</p>
      </div>
      <Badge tone={tone} data-state={label}>
        {label}
      </Badge>
      <Button variant={timeline ? "secondary" : "ghost"} size="sm" onClick={onTimeline} aria-pressed={timeline}>
        <ChartGantt className="size-3.5" /> Timeline
      </Button>
      {running && !asking && (
        <Button variant="outline" size="sm" onClick={() => setAsking(true)} data-action="cancel">
          <Square className="size-3" /> Cancel
        </Button>
      )}
      {running && asking && (
        <div className="flex items-center gap-2" role="group" aria-label="Cancel the task?">
          <span className="text-sm text-muted-foreground">Cancel this task?</span>
          <Button
            variant="destructive"
            size="sm"
            autoFocus
            onClick={() => {
              setAsking(false);
              onCancel();
            }}
            data-action="confirm-cancel"
          >
            Cancel task
          </Button>
          <Button variant="ghost" size="sm" onClick={() => setAsking(false)}>
            Keep
          </Button>
        </div>
      )}
    </div>
  );
}
