/**
 * A task's model and tool calls as the harness tells them on the stream
 * (docs/a2a/ext/call.schema.json): each call is told when it starts and again when it ends,
 * under the same `callId`. Read defensively: a value without the expected shape is ignored.
 * The wire's types come from the committed schema (`npm run types` generates src/generated/).
 */

import type { CallEvent } from "@/generated/call.schema";

export type CallState = CallEvent["state"];

/** A call as the UI holds it: every field the schema leaves out is null. */
export interface CallView {
  readonly callId: string;
  readonly kind: CallEvent["kind"];
  readonly name: string;
  readonly state: CallState;
  /** ISO time the call started. */
  readonly startedAt: string;
  readonly durationMs: number | null;
  /** A tool call's arguments, masked; null when not shown. */
  readonly arguments: Record<string, unknown> | null;
  /** The start of what the tool returned, or why it failed; null when not shown. */
  readonly result: string | null;
  readonly resultChars: number | null;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly costUsd: number | null;
}

// A state the schema gains fails the type check here until the UI knows it.
const KNOWN: Record<CallState, true> = { started: true, completed: true, failed: true, vetoed: true, not_retried: true };
const STATES: ReadonlySet<string> = new Set(Object.keys(KNOWN));

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/** A call event, or null when `value` is not one. */
export function readCall(value: unknown): CallView | null {
  if (!isObject(value)) return null;
  const { callId, kind, name, state, startedAt } = value;
  if (typeof callId !== "string" || !callId) return null;
  if (kind !== "model" && kind !== "tool") return null;
  if (typeof state !== "string" || !STATES.has(state)) return null;
  return {
    callId,
    kind,
    name: typeof name === "string" ? name : "",
    state: state as CallState,
    startedAt: typeof startedAt === "string" ? startedAt : "",
    durationMs: count(value.durationMs),
    arguments: isObject(value.arguments) ? value.arguments : null,
    result: typeof value.result === "string" ? value.result : null,
    resultChars: count(value.resultChars),
    inputTokens: count(value.inputTokens),
    outputTokens: count(value.outputTokens),
    costUsd: count(value.costUsd),
  };
}

/** The call as the newest event tells it: an end is never undone by a replayed start. */
export function laterCall(known: CallView, told: CallView): CallView {
  return known.state !== "started" && told.state === "started" ? known : told;
}

/** How long a call took, for people: "850 ms", "2.4 s", "1 min 5 s". */
export function duration(ms: number | null): string {
  if (ms === null) return "";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** What a task's calls add up to. */
export interface CallTotals {
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Null when no model call was priced. */
  readonly costUsd: number | null;
  /** From the first call's start to the last one's end. */
  readonly spanMs: number;
}

/** One call on the timeline's axis: where it starts and how much of the axis it takes. */
export interface CallBar {
  readonly call: CallView;
  readonly offsetMs: number;
  /** Its duration; a call still running reaches the end of the axis. */
  readonly lengthMs: number;
}

/** The calls on one time axis, from the first call's start, and their totals. */
export function callTimeline(calls: readonly CallView[]): { bars: CallBar[]; totals: CallTotals } {
  const starts = calls.map((c) => Date.parse(c.startedAt)).map((t) => (Number.isNaN(t) ? 0 : t));
  const first = starts.length > 0 ? Math.min(...starts) : 0;
  const ends = calls.map((c, i) => (starts[i] ?? first) + (c.durationMs ?? 0));
  const last = ends.length > 0 ? Math.max(...ends) : first;
  const bars = calls.map((call, i) => {
    const offsetMs = (starts[i] ?? first) - first;
    const lengthMs = call.durationMs ?? Math.max(0, last - first - offsetMs);
    return { call, offsetMs, lengthMs };
  });
  const models = calls.filter((c) => c.kind === "model");
  const costs = models.map((c) => c.costUsd).filter((c): c is number => c !== null);
  return {
    bars,
    totals: {
      modelCalls: models.length,
      toolCalls: calls.length - models.length,
      inputTokens: models.reduce((sum, c) => sum + (c.inputTokens ?? 0), 0),
      outputTokens: models.reduce((sum, c) => sum + (c.outputTokens ?? 0), 0),
      costUsd: costs.length > 0 ? costs.reduce((a, b) => a + b, 0) : null,
      spanMs: last - first,
    },
  };
}
