/** The task states by what they mean to a person, and their labels. */

import { TaskState, taskStateFromJSON } from "@a2a-js/sdk";

const FINAL: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

const PAUSED: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** Whether a task in `state` never changes again. */
export function isFinal(state: TaskState): boolean {
  return FINAL.has(state);
}

/** Whether a task in `state` waits for a person. */
export function isPaused(state: TaskState): boolean {
  return PAUSED.has(state);
}

export type Tone = "neutral" | "busy" | "waiting" | "good" | "bad";

const LABELS: Record<number, [string, Tone]> = {
  [TaskState.TASK_STATE_UNSPECIFIED]: ["new", "neutral"],
  [TaskState.TASK_STATE_SUBMITTED]: ["submitted", "busy"],
  [TaskState.TASK_STATE_WORKING]: ["working", "busy"],
  [TaskState.TASK_STATE_INPUT_REQUIRED]: ["needs input", "waiting"],
  [TaskState.TASK_STATE_AUTH_REQUIRED]: ["needs auth", "waiting"],
  [TaskState.TASK_STATE_COMPLETED]: ["completed", "good"],
  [TaskState.TASK_STATE_FAILED]: ["failed", "bad"],
  [TaskState.TASK_STATE_CANCELED]: ["canceled", "neutral"],
  [TaskState.TASK_STATE_REJECTED]: ["rejected", "bad"],
};

/** A short label for `state` and the tone it is shown in. */
export function stateLabel(state: TaskState): [string, Tone] {
  return LABELS[state] ?? ["unknown", "neutral"];
}

/** A task state as the task extension names it ("TASK_STATE_WORKING"), as a `TaskState`. */
export function stateNamed(name: string | null): TaskState {
  const state = name === null ? TaskState.UNRECOGNIZED : taskStateFromJSON(name);
  return state === TaskState.UNRECOGNIZED ? TaskState.TASK_STATE_UNSPECIFIED : state;
}

/** The media type without parameters, lower case ("text/plain; charset=x" -> "text/plain"). */
export function mediaEssence(mediaType: string): string {
  return (mediaType.split(";", 1)[0] ?? "").trim().toLowerCase();
}
