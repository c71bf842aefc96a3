/** A task's calls in the reducer, and on the timeline's axis. */

import { StreamResponse } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";

import "@/a2a/buffer-shim";
import { CALL_MEDIA_TYPE, TASK_EXT_KEY } from "@/a2a/constants";
import { callTimeline, readCall, type CallView } from "@/model/calls";
import { applyEvent, emptyView } from "@/model/timeline";

const STARTED_AT = "2026-12-05T12:00:00Z";

function callEvent(messageId: string, call: Record<string, unknown>): StreamResponse {
  return StreamResponse.fromJSON({
    statusUpdate: {
      taskId: "t",
      contextId: "c",
      status: {
        state: "TASK_STATE_WORKING",
        message: {
          messageId,
          role: "ROLE_AGENT",
          parts: [{ data: call, mediaType: CALL_MEDIA_TYPE }],
        },
      },
    },
  });
}

const START = { callId: "c-1", kind: "tool", name: "lookup", state: "started", startedAt: STARTED_AT, arguments: { q: "x" } };
const END = { ...START, state: "vetoed", durationMs: 12, result: "refused by hook: policy" };

describe("calls in the reducer", () => {
  it("shows a call's start and end as one entry that the end updates", () => {
    const started = applyEvent(emptyView(), callEvent("m-1", START));
    expect(started.entries.map((e) => [e.kind, e.call?.state])).toEqual([["call", "started"]]);
    const ended = applyEvent(started, callEvent("m-2", END));
    expect(ended.entries).toHaveLength(1);
    expect(ended.entries[0]?.call).toMatchObject({ state: "vetoed", durationMs: 12, result: "refused by hook: policy" });
  });

  it("never goes back to started when a start comes again after the end", () => {
    let view = [callEvent("m-1", START), callEvent("m-2", END)].reduce(applyEvent, emptyView());
    const before = view.entries;
    view = applyEvent(view, callEvent("m-3", { ...START }));
    expect(view.entries).toBe(before);
    expect(view.entries[0]?.call?.state).toBe("vetoed");
  });

  it("ignores a call part without the call's shape", () => {
    const view = applyEvent(emptyView(), callEvent("m-1", { callId: "c-1", kind: "robot", state: "started" }));
    expect(view.entries.map((e) => e.kind)).toEqual(["agent"]);
    expect(readCall({ callId: "", kind: "tool", state: "started" })).toBeNull();
  });
});

function call(callId: string, kind: "model" | "tool", offsetMs: number, durationMs: number | null, extra: Partial<CallView> = {}): CallView {
  return {
    callId,
    kind,
    name: callId,
    state: durationMs === null ? "started" : "completed",
    startedAt: new Date(Date.parse(STARTED_AT) + offsetMs).toISOString(),
    durationMs,
    arguments: null,
    result: null,
    resultChars: null,
    inputTokens: kind === "model" ? 100 : null,
    outputTokens: kind === "model" ? 5 : null,
    costUsd: null,
    ...extra,
  };
}

describe("the timeline", () => {
  it("puts each call at its start on one axis and adds up the model calls", () => {
    const { bars, totals } = callTimeline([
      call("model-1", "model", 0, 100, { costUsd: 0.5 }),
      call("lookup", "tool", 100, 50),
      call("model-2", "model", 150, 250),
    ]);
    expect(bars.map((b) => [b.call.callId, b.offsetMs, b.lengthMs])).toEqual([
      ["model-1", 0, 100],
      ["lookup", 100, 50],
      ["model-2", 150, 250],
    ]);
    expect(totals).toEqual({ modelCalls: 2, toolCalls: 1, inputTokens: 200, outputTokens: 10, costUsd: 0.5, spanMs: 400 });
  });

  it("draws a running call to the end of the axis and counts no cost when none is priced", () => {
    const { bars, totals } = callTimeline([call("model-1", "model", 0, 300), call("lookup", "tool", 100, null)]);
    expect(bars[1]).toMatchObject({ offsetMs: 100, lengthMs: 200 });
    expect(totals.costUsd).toBeNull();
  });
});

describe("the task's trace", () => {
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";

  function taskWithTrace(trace: Record<string, unknown>): StreamResponse {
    return StreamResponse.fromJSON({
      task: {
        id: "t",
        contextId: "c",
        status: { state: "TASK_STATE_WORKING" },
        metadata: { [TASK_EXT_KEY]: { trace } },
      },
    });
  }

  it("is read from the task extension with its link", () => {
    const view = applyEvent(emptyView(), taskWithTrace({ traceId, url: `https://jaeger.example/trace/${traceId}` }));
    expect(view.trace).toEqual({ traceId, url: `https://jaeger.example/trace/${traceId}` });
  });

  it("keeps the id but never a link that is not http(s)", () => {
    const view = applyEvent(emptyView(), taskWithTrace({ traceId, url: "javascript:alert(1)" }));
    expect(view.trace).toEqual({ traceId, url: null });
  });
});
