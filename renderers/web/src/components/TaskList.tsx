import { Plus, RefreshCw } from "lucide-react";
import { memo } from "react";
import { TaskState, type Task } from "@a2a-js/sdk";

import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { TASK_EXT_KEY } from "@/a2a/constants";
import { knownTitles } from "@/lib/storage";
import { cn } from "@/lib/utils";
import { stateLabel } from "@/model/states";
import { readTaskExtension } from "@/model/task-ext";

/** The task's name, or its first message as this browser knows it, or its short id. */
export function titleOf(task: Task, titles: Record<string, string>): string {
  const ext = readTaskExtension((task.metadata)?.[TASK_EXT_KEY]);
  return ext?.name || titles[task.id] || `Task ${task.id.slice(0, 8)}`;
}

function when(timestamp: string | undefined): string {
  if (!timestamp) return "";
  const at = new Date(timestamp);
  const today = new Date().toDateString() === at.toDateString();
  return today
    ? at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : at.toLocaleDateString([], { month: "short", day: "numeric" });
}

/** The caller's tasks, newest change first; the open one marked. */
export const TaskList = memo(function TaskList({
  tasks,
  loaded,
  error,
  openId,
  onOpen,
  onNew,
  onRefresh,
}: {
  tasks: readonly Task[];
  loaded: boolean;
  error: string;
  openId: string;
  onOpen: (taskId: string) => void;
  onNew: () => void;
  onRefresh: () => void;
}) {
  const titles = knownTitles();
  return (
    <nav aria-label="Tasks" className="flex h-full min-h-0 flex-col">
      <div className="flex items-center gap-2 p-3">
        <Button className="flex-1" onClick={onNew} data-action="new-task">
          <Plus /> New task
        </Button>
        <Button variant="ghost" size="icon" aria-label="Refresh the task list" onClick={onRefresh}>
          <RefreshCw />
        </Button>
      </div>
      <div className="min-h-0 flex-1 overflow-y-auto px-2 pb-3">
        {error && <p className="px-2 py-1 text-xs text-destructive">{error}</p>}
        {loaded && tasks.length === 0 && !error && (
          <p className="px-2 py-6 text-center text-sm text-muted-foreground">No tasks yet.</p>
        )}
        <ul className="flex flex-col gap-0.5">
          {tasks.map((task) => {
            const state = task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
            const [label, tone] = stateLabel(state);
            const open = task.id === openId;
            return (
              <li key={task.id}>
                <button
                  type="button"
                  onClick={() => onOpen(task.id)}
                  aria-current={open ? "true" : undefined}
                  data-task={task.id}
                  className={cn(
                    "flex w-full flex-col gap-1 rounded-md px-2.5 py-2 text-left text-sm outline-none hover:bg-accent focus-visible:ring-[3px] focus-visible:ring-ring/50",
                    open && "bg-accent",
                  )}
                >
                  <span className="truncate font-medium">{titleOf(task, titles)}</span>
                  <span className="flex items-center gap-2">
                    <Badge tone={tone}>{label}</Badge>
                    <span className="text-xs text-muted-foreground">{when(task.status?.timestamp)}</span>
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      </div>
    </nav>
  );
});
