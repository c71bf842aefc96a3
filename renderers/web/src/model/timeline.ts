/**
 * The one reducer from a task's A2A events to what the web UI shows.
 *
 *     StreamResponse ─► applyEvent(view, event) ─► a new TaskView ─► the components
 *
 * Pure: no React, no I/O, so it is tested on its own and replays are cheap. Every entry has
 * the id of the message or artifact it came from, and a message already seen is never added
 * again: a resubscribe opens with the whole task (its history and artifacts), so what was
 * shown before the break is recognised, and what came during it is added, each event once.
 * An artifact is replaced when an event sends it whole and extended when it appends a chunk.
 * Unchanged entries keep their identity, so memoised components skip them.
 *
 * What each part becomes (`PartView`): text as Markdown; a data part as JSON; a file or URL
 * as its name, media type and link; A2UI messages go, in order, to `a2ui` (drawn by the
 * official renderer) and add one surface entry where a surface first appears; the plan part
 * and the task extension part update `plan` and `subTasks`; a question's options become the
 * entry's `options`; a call part adds one "call" entry per call where it starts, which its end
 * then updates; anything else is a placeholder naming its kind and media type.
 */

import { Role, TaskState } from "@a2a-js/sdk";
import type { Artifact, Message, Part, StreamResponse, Task } from "@a2a-js/sdk";

import {
  A2UI_MEDIA_TYPE,
  CALL_MEDIA_TYPE,
  CHANNEL_MEDIA_TYPE,
  PLAN_MEDIA_TYPE,
  PLAN_TEXT_PREFIX,
  TASK_EXT_KEY,
  TASK_MEDIA_TYPE,
} from "@/a2a/constants";
import { laterCall, readCall, type CallView } from "@/model/calls";
import { isFinal, mediaEssence } from "@/model/states";
import { readPlan, readTaskExtension, type Plan, type TaskRef, type TraceLink } from "@/model/task-ext";

export type PartView =
  | { kind: "markdown"; text: string }
  | { kind: "json"; data: unknown; mediaType: string }
  | { kind: "file"; name: string; mediaType: string; url: string; size: number | null }
  | { kind: "placeholder"; content: string; mediaType: string }
  /** A person's A2UI action (a button pressed), as the agent receives it. */
  | { kind: "action"; name: string; context: Record<string, unknown> };

export type EntryKind =
  | "user"
  | "agent"
  | "question"
  | "auth"
  | "final"
  | "artifact"
  | "surface"
  | "call";

/** One block of the conversation. */
export interface Entry {
  readonly id: string;
  readonly kind: EntryKind;
  readonly parts: readonly PartView[];
  /** A question's options, offered as buttons. */
  readonly options: readonly string[];
  /** An artifact's name. */
  readonly name: string;
  /** A surface entry's A2UI surface id. */
  readonly surfaceId: string;
  /** For an artifact: whether its last chunk has come. */
  readonly complete: boolean;
  /** A message this client sent that the agent has not echoed yet. */
  readonly pending: boolean;
  /** A call entry's call, as last told. */
  readonly call: CallView | null;
}

/** One task as the UI shows it. */
export interface TaskView {
  readonly taskId: string;
  readonly contextId: string;
  readonly state: TaskState;
  readonly name: string;
  readonly entries: readonly Entry[];
  readonly plan: Plan | null;
  readonly subTasks: readonly TaskRef[];
  /** The trace of the task's work, when the server traces. */
  readonly trace: TraceLink | null;
  /** Every A2UI server message the task sent, in order, for the official renderer. */
  readonly a2ui: readonly unknown[];
  /** How many events have been folded in. */
  readonly events: number;
  readonly seen: ReadonlySet<string>;
}

export function emptyView(taskId = ""): TaskView {
  return {
    taskId,
    contextId: "",
    state: TaskState.TASK_STATE_UNSPECIFIED,
    name: "",
    entries: [],
    plan: null,
    subTasks: [],
    trace: null,
    a2ui: [],
    events: 0,
    seen: new Set(),
  };
}

/** A working copy of a view: what one event changes, gathered before it is frozen. */
class Draft {
  taskId: string;
  contextId: string;
  state: TaskState;
  name: string;
  plan: Plan | null;
  subTasks: readonly TaskRef[];
  trace: TraceLink | null;
  // Copied on the first change only, so an event that changes nothing keeps the arrays.
  private ownEntries: Entry[] | null = null;
  private ownA2ui: unknown[] | null = null;
  private seen: Set<string> | null = null;
  private readonly base: TaskView;

  constructor(base: TaskView) {
    this.base = base;
    this.taskId = base.taskId;
    this.contextId = base.contextId;
    this.state = base.state;
    this.name = base.name;
    this.plan = base.plan;
    this.subTasks = base.subTasks;
    this.trace = base.trace;
  }

  get entries(): readonly Entry[] {
    return this.ownEntries ?? this.base.entries;
  }

  addEntry(entry: Entry): void {
    this.ownEntries ??= [...this.base.entries];
    this.ownEntries.push(entry);
  }

  replaceEntry(index: number, entry: Entry): void {
    this.ownEntries ??= [...this.base.entries];
    this.ownEntries[index] = entry;
  }

  addA2ui(message: unknown): void {
    this.ownA2ui ??= [...this.base.a2ui];
    this.ownA2ui.push(message);
  }

  hasSeen(id: string): boolean {
    return (this.seen ?? this.base.seen).has(id);
  }

  see(id: string): void {
    this.seen ??= new Set(this.base.seen);
    this.seen.add(id);
  }

  indexOf(id: string): number {
    return this.entries.findIndex((e) => e.id === id);
  }

  done(events: number): TaskView {
    return {
      taskId: this.taskId,
      contextId: this.contextId,
      state: this.state,
      name: this.name,
      entries: this.entries,
      plan: this.plan,
      subTasks: this.subTasks,
      trace: this.trace,
      a2ui: this.ownA2ui ?? this.base.a2ui,
      events,
      seen: this.seen ?? this.base.seen,
    };
  }
}

/** Fold one event in. */
export function applyEvent(view: TaskView, event: StreamResponse): TaskView {
  const draft = new Draft(view);
  const payload = event.payload;
  switch (payload?.$case) {
    case "task":
      foldTask(draft, payload.value);
      break;
    case "statusUpdate": {
      const update = payload.value;
      ids(draft, update.taskId, update.contextId);
      const state = update.status?.state ?? draft.state;
      draft.state = state;
      if (update.status?.message) foldMessage(draft, update.status.message, state);
      break;
    }
    case "artifactUpdate": {
      const update = payload.value;
      ids(draft, update.taskId, update.contextId);
      if (update.artifact) {
        foldArtifact(draft, update.artifact, update.append, update.lastChunk);
      }
      break;
    }
    case "message":
      foldMessage(draft, payload.value, draft.state);
      break;
    case undefined:
      break; // an event this SDK does not know: counted, shown in the inspector only
  }
  return draft.done(view.events + 1);
}

/** A message this client sent, shown before the agent echoes it. */
export function addSent(view: TaskView, message: Message): TaskView {
  const draft = new Draft(view);
  foldMessage(draft, message, TaskState.TASK_STATE_UNSPECIFIED, true);
  return draft.done(view.events);
}

function ids(draft: Draft, taskId: string, contextId: string): void {
  draft.taskId ||= taskId;
  draft.contextId ||= contextId;
}

function foldTask(draft: Draft, task: Task): void {
  ids(draft, task.id, task.contextId);
  const state = task.status?.state ?? draft.state;
  draft.state = state;
  // The status message is in the history too: drawn as what it is (a question, the final
  // word) whichever comes first, the task (a cancel's answer, say) or the stream's event.
  const statusId = task.status?.message?.messageId;
  for (const message of task.history) {
    const shownAs = message.messageId === statusId ? state : TaskState.TASK_STATE_UNSPECIFIED;
    foldMessage(draft, message, shownAs);
  }
  if (task.status?.message) foldMessage(draft, task.status.message, state);
  for (const artifact of task.artifacts) foldArtifact(draft, artifact, false, isFinal(state));
  foldExtension(draft, (task.metadata)?.[TASK_EXT_KEY]);
}

function foldExtension(draft: Draft, value: unknown): void {
  const ext = readTaskExtension(value);
  if (ext === null) return;
  if (ext.name) draft.name = ext.name;
  if (!sameRefs(ext.subTasks, draft.subTasks)) draft.subTasks = ext.subTasks;
  if (ext.plan !== null) foldPlan(draft, ext.plan);
  if (ext.trace !== null && JSON.stringify(ext.trace) !== JSON.stringify(draft.trace)) draft.trace = ext.trace;
}

function foldPlan(draft: Draft, plan: Plan): void {
  if (JSON.stringify(plan) !== JSON.stringify(draft.plan)) draft.plan = plan;
}

function foldMessage(draft: Draft, message: Message, state: TaskState, pending = false): void {
  const known = draft.indexOf(message.messageId);
  if (draft.hasSeen(message.messageId)) {
    const entry = draft.entries[known];
    if (!pending && entry?.pending) draft.replaceEntry(known, { ...entry, pending: false });
    return;
  }
  draft.see(message.messageId);
  const parts: PartView[] = [];
  const drawn: unknown[] = [];
  let options: readonly string[] = [];
  let planShown = false;
  for (const part of message.parts) {
    const essence = mediaEssence(part.mediaType);
    if (part.content?.$case === "data") {
      const value: unknown = part.content.value;
      if (essence === A2UI_MEDIA_TYPE) {
        // The agent's messages draw; a person's (an action, an error) go to the agent only.
        if (message.role === Role.ROLE_AGENT) drawn.push(value);
        else {
          const action = actionOf(value);
          if (action !== null) parts.push(action);
        }
        continue;
      }
      if (essence === PLAN_MEDIA_TYPE) {
        const plan = readPlan(value);
        if (plan !== null) {
          foldPlan(draft, plan);
          planShown = true;
        }
        continue;
      }
      if (essence === TASK_MEDIA_TYPE) {
        foldExtension(draft, value);
        continue;
      }
      if (essence === CALL_MEDIA_TYPE) {
        const call = readCall(value);
        if (call !== null) {
          foldCall(draft, call);
          continue;
        }
      }
      if (essence === CHANNEL_MEDIA_TYPE) continue;
      const listed = message.role === Role.ROLE_AGENT ? optionsOf(value) : null;
      if (listed !== null) {
        options = listed;
        continue;
      }
    }
    parts.push(viewOf(part));
  }
  // A new plan's message says the plan as text too, for clients that read text only; the
  // plan panel shows it here. (A step's message says what the step did: it stays.)
  const shown = planShown ? parts.filter((part) => !saysThePlan(part)) : parts;
  if (shown.length > 0 || options.length > 0) {
    draft.addEntry({
      id: message.messageId,
      kind: kindOf(message, state),
      parts: shown,
      options,
      name: "",
      surfaceId: "",
      complete: true,
      pending,
      call: null,
    });
  }
  for (const ui of drawn) foldA2ui(draft, ui); // after the text that introduces the surface
}

function saysThePlan(part: PartView): boolean {
  return part.kind === "markdown" && part.text.startsWith(PLAN_TEXT_PREFIX);
}

function foldCall(draft: Draft, call: CallView): void {
  const id = `call:${call.callId}`;
  const known = draft.indexOf(id);
  const old = draft.entries[known];
  if (old === undefined) {
    draft.addEntry({
      id,
      kind: "call",
      parts: [],
      options: [],
      name: call.name,
      surfaceId: "",
      complete: call.state !== "started",
      pending: false,
      call,
    });
    return;
  }
  const next = old.call === null ? call : laterCall(old.call, call);
  if (next === old.call || JSON.stringify(next) === JSON.stringify(old.call)) return;
  draft.replaceEntry(known, { ...old, name: next.name, complete: next.state !== "started", call: next });
}

function foldA2ui(draft: Draft, value: unknown): void {
  draft.addA2ui(value);
  const surfaceId = surfaceIdOf(value);
  if (surfaceId === null) return; // the renderer reports it; there is no surface to hold it
  const id = `a2ui:${surfaceId}`;
  if (draft.indexOf(id) >= 0) return;
  draft.addEntry({
    id,
    kind: "surface",
    parts: [],
    options: [],
    name: "",
    surfaceId,
    complete: true,
    pending: false,
    call: null,
  });
}

function foldArtifact(draft: Draft, artifact: Artifact, append: boolean, last: boolean): void {
  const id = `artifact:${artifact.artifactId}`;
  const parts = artifact.parts.map(viewOf);
  const known = draft.indexOf(id);
  const old = draft.entries[known];
  if (old === undefined) {
    draft.addEntry({
      id,
      kind: "artifact",
      parts,
      options: [],
      name: artifact.name,
      surfaceId: "",
      complete: last,
      pending: false,
      call: null,
    });
    return;
  }
  const next = append ? [...old.parts, ...parts] : parts;
  if (!append && old.complete >= last && JSON.stringify(next) === JSON.stringify(old.parts)) {
    return; // the same artifact again (a replay after a resubscribe)
  }
  draft.replaceEntry(known, { ...old, parts: next, name: artifact.name || old.name, complete: last });
}

/** The surface an A2UI server message is about, or null when it names none. */
export function surfaceIdOf(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return null;
  for (const [key, body] of Object.entries(value)) {
    if (key === "version" || typeof body !== "object" || body === null) continue;
    const id = (body as Record<string, unknown>).surfaceId;
    if (typeof id === "string" && id) return id;
  }
  return null;
}

function actionOf(value: unknown): PartView | null {
  if (typeof value !== "object" || value === null) return null;
  const action = (value as Record<string, unknown>).action;
  if (typeof action !== "object" || action === null) return null;
  const { name, context } = action as Record<string, unknown>;
  if (typeof name !== "string") return null;
  const fields = typeof context === "object" && context !== null ? (context as Record<string, unknown>) : {};
  return { kind: "action", name, context: fields };
}

function optionsOf(value: unknown): string[] | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  const listed = (value as Record<string, unknown>).options;
  if (keys.length !== 1 || !Array.isArray(listed)) return null;
  return listed.map(String);
}

function kindOf(message: Message, state: TaskState): EntryKind {
  if (message.role === Role.ROLE_USER) return "user";
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) return "question";
  if (state === TaskState.TASK_STATE_AUTH_REQUIRED) return "auth";
  if (isFinal(state)) return "final";
  return "agent";
}

const MARKDOWN = new Set(["", "text/plain", "text/markdown"]);

/** How one part is drawn. */
export function viewOf(part: Part): PartView {
  const mediaType = mediaEssence(part.mediaType);
  const content = part.content;
  switch (content?.$case) {
    case "text":
      return MARKDOWN.has(mediaType)
        ? { kind: "markdown", text: content.value }
        : { kind: "placeholder", content: "text", mediaType };
    case "data":
      return { kind: "json", data: content.value, mediaType };
    case "url":
      return {
        kind: "file",
        name: part.filename || content.value,
        mediaType,
        url: content.value,
        size: null,
      };
    case "raw": {
      const bytes: unknown = content.value; // a Buffer-like Uint8Array (see buffer-shim)
      const size = bytes instanceof Uint8Array ? bytes.length : null;
      return { kind: "file", name: part.filename, mediaType, url: "", size };
    }
    case undefined:
      return { kind: "placeholder", content: "empty", mediaType };
  }
}

function sameRefs(a: readonly TaskRef[], b: readonly TaskRef[]): boolean {
  return a.length === b.length && a.every((r, i) => JSON.stringify(r) === JSON.stringify(b[i]));
}
