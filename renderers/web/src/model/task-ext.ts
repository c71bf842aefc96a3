/**
 * The parts of the tiny-harness task extension the UI reads (docs/a2a/ext/task.schema.json):
 * the name, the plan and the sub-task references. Read defensively: a value that does not
 * have the expected shape is ignored, never trusted. The wire's types come from the committed
 * schema (`npm run types` generates src/generated/).
 */

import { TaskState } from "@a2a-js/sdk";

import type { Step } from "@/generated/task.schema";

import { isFinal } from "@/model/states";

export interface PlanStep {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly dependsOn: readonly string[];
  readonly state: NonNullable<Step["state"]>;
}

export interface Plan {
  readonly steps: readonly PlanStep[];
}

export interface TaskRef {
  readonly taskId: string;
  /** The agent that runs it; null for this harness. */
  readonly agent: string | null;
  /** Its state as last reported (a TaskState name), null until known. */
  readonly state: string | null;
}

/** The trace of a task's work, and where to open it (null: the server names no viewer). */
export interface TraceLink {
  readonly traceId: string;
  readonly url: string | null;
}

export interface TaskExtension {
  readonly name: string;
  readonly plan: Plan | null;
  readonly subTasks: readonly TaskRef[];
  readonly trace: TraceLink | null;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** A plan, or null when `value` is not one. */
export function readPlan(value: unknown): Plan | null {
  if (!isObject(value) || !Array.isArray(value.steps)) return null;
  const steps: PlanStep[] = [];
  for (const step of value.steps as unknown[]) {
    if (!isObject(step) || typeof step.id !== "string") return null;
    const dependsOn = Array.isArray(step.dependsOn) ? step.dependsOn.map(String) : [];
    steps.push({
      id: step.id,
      name: text(step.name) || step.id,
      description: text(step.description),
      dependsOn,
      state: step.state === "done" ? "done" : "pending",
    });
  }
  return { steps };
}

/** The task extension's name, plan and sub-tasks, or null when `value` is not one. */
export function readTaskExtension(value: unknown): TaskExtension | null {
  if (!isObject(value)) return null;
  const refs: TaskRef[] = [];
  for (const ref of Array.isArray(value.subTasks) ? (value.subTasks as unknown[]) : []) {
    if (isObject(ref) && typeof ref.taskId === "string") {
      refs.push({
        taskId: ref.taskId,
        agent: typeof ref.agent === "string" ? ref.agent : null,
        state: typeof ref.state === "string" ? ref.state : null,
      });
    }
  }
  return {
    name: text(value.name),
    plan: value.plan ? readPlan(value.plan) : null,
    subTasks: refs,
    trace: readTrace(value.trace),
  };
}

function readTrace(value: unknown): TraceLink | null {
  if (!isObject(value) || typeof value.traceId !== "string" || !value.traceId) return null;
  const url = typeof value.url === "string" && /^https?:\/\//.test(value.url) ? value.url : null;
  return { traceId: value.traceId, url };
}

export type StepStatus = "pending" | "in_progress" | "done" | "failed" | "skipped";

export interface StepView {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly status: StepStatus;
}

/**
 * The plan's steps and where each stands: done; failed (the task failed without it); skipped
 * (the task ended otherwise without it); in progress (the first step whose dependencies are
 * done, while the task runs); or pending.
 */
export function stepsOf(plan: Plan | null, state: TaskState): StepView[] {
  if (plan === null) return [];
  const done = new Set(plan.steps.filter((s) => s.state === "done").map((s) => s.id));
  let running = false;
  return plan.steps.map((step) => {
    let status: StepStatus;
    if (done.has(step.id)) status = "done";
    else if (isFinal(state)) status = state === TaskState.TASK_STATE_FAILED ? "failed" : "skipped";
    else if (!running && step.dependsOn.every((d) => done.has(d))) {
      status = "in_progress";
      running = true;
    } else status = "pending";
    return { id: step.id, name: step.name, description: step.description, status };
  });
}
