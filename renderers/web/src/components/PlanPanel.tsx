import { Check, Circle, CircleDashed, CircleDot, CornerDownRight, X } from "lucide-react";
import { memo } from "react";
import type { TaskState } from "@a2a-js/sdk";

import { Badge } from "@/components/ui/badge";
import { stateLabel, stateNamed } from "@/model/states";
import { stepsOf, type Plan, type StepStatus, type TaskRef } from "@/model/task-ext";
import { cn } from "@/lib/utils";

const STEP_ICONS: Record<StepStatus, typeof Check> = {
  done: Check,
  in_progress: CircleDot,
  pending: Circle,
  failed: X,
  skipped: CircleDashed,
};

/** The task's plan as a live checklist, and its sub-tasks with their remote state. */
export const PlanPanel = memo(function PlanPanel({
  plan,
  subTasks,
  state,
}: {
  plan: Plan | null;
  subTasks: readonly TaskRef[];
  state: TaskState;
}) {
  const steps = stepsOf(plan, state);
  if (steps.length === 0 && subTasks.length === 0) return null;
  const done = steps.filter((s) => s.status === "done").length;
  return (
    <section aria-label="Plan" className="border-b bg-muted/30">
      <div className="mx-auto max-w-3xl px-4 py-3">
        {steps.length > 0 && (
          <>
            <div className="mb-2 flex items-center justify-between text-xs text-muted-foreground">
              <span className="font-medium text-foreground">Plan</span>
              <span>
                {done} of {steps.length} done
              </span>
            </div>
            <ol className="flex flex-col gap-1.5" data-plan>
              {steps.map((step) => {
                const Icon = STEP_ICONS[step.status];
                return (
                  <li key={step.id} className="flex items-start gap-2 text-sm" data-step={step.status} title={step.description}>
                    <Icon
                      className={cn(
                        "mt-0.5 size-4 shrink-0",
                        step.status === "done" && "text-good",
                        step.status === "in_progress" && "animate-pulse text-busy",
                        step.status === "pending" && "text-muted-foreground",
                        step.status === "failed" && "text-destructive",
                        step.status === "skipped" && "text-muted-foreground",
                      )}
                      aria-label={step.status.replace("_", " ")}
                    />
                    <span className={cn(step.status === "done" && "text-muted-foreground line-through decoration-muted-foreground/40")}>
                      {step.name}
                    </span>
                  </li>
                );
              })}
            </ol>
          </>
        )}
        {subTasks.length > 0 && (
          <ul className={cn("flex flex-col gap-1", steps.length > 0 && "mt-3")} aria-label="Sub-tasks" data-subtasks>
            {subTasks.map((ref) => {
              const [label, tone] = stateLabel(stateNamed(ref.state));
              return (
                <li key={ref.taskId} className="flex items-center gap-2 text-sm" data-subtask={ref.taskId}>
                  <CornerDownRight className="size-3.5 text-muted-foreground" aria-hidden />
                  <span className="truncate font-mono text-xs">{ref.taskId.slice(0, 8)}</span>
                  <span className="truncate text-muted-foreground">{ref.agent ?? "this harness"}</span>
                  <Badge tone={ref.state === null ? "neutral" : tone} className="ml-auto">
                    {ref.state === null ? "unknown" : label}
                  </Badge>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </section>
  );
});
