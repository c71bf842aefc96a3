/**
 * The reducer from A2A events to the view model. Events are built from their wire JSON with
 * the SDK's own `StreamResponse.fromJSON`, as the client receives them.
 */

import { Message, StreamResponse, TaskState } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";

import "@/a2a/buffer-shim";
import {
  A2UI_MEDIA_TYPE,
  CHANNEL_MEDIA_TYPE,
  PLAN_MEDIA_TYPE,
  TASK_EXT_KEY,
  TASK_MEDIA_TYPE,
} from "@/a2a/constants";
import { stepsOf, type Plan } from "@/model/task-ext";
import { addSent, applyEvent, emptyView, type TaskView } from "@/model/timeline";

const TASK = "task-1";
const CONTEXT = "ctx-1";

type Json = Record<string, unknown>;

function event(json: Json): StreamResponse {
  return StreamResponse.fromJSON(json);
}

function agentMessage(id: string, parts: Json[]): Json {
  return { messageId: id, role: "ROLE_AGENT", taskId: TASK, contextId: CONTEXT, parts };
}

function userMessage(id: string, text: string): Json {
  return { messageId: id, role: "ROLE_USER", taskId: TASK, contextId: CONTEXT, parts: [{ text }] };
}

function status(state: string, message?: Json): StreamResponse {
  const body: Json = { state };
  if (message) body.message = message;
  return event({ statusUpdate: { taskId: TASK, contextId: CONTEXT, status: body } });
}

function artifact(id: string, text: string, append = false, lastChunk = false, name = "answer") {
  return event({
    artifactUpdate: {
      taskId: TASK,
      contextId: CONTEXT,
      artifact: { artifactId: id, name, parts: [{ text }] },
      append,
      lastChunk,
    },
  });
}

function task(state: string, history: Json[], extra: Json = {}): StreamResponse {
  return event({ task: { id: TASK, contextId: CONTEXT, status: { state }, history, ...extra } });
}

function fold(...events: StreamResponse[]): TaskView {
  return events.reduce(applyEvent, emptyView());
}

const BUTTON_SURFACE = [
  { version: "v0.9.1", createSurface: { surfaceId: "sizes", catalogId: "basic" } },
  {
    version: "v0.9.1",
    updateComponents: {
      surfaceId: "sizes",
      components: [{ id: "root", component: "Button", child: "l", action: { event: { name: "go" } } }],
    },
  },
];

describe("applyEvent", () => {
  it("shows a task's history, status message and artifacts when a stream opens with it", () => {
    const view = fold(
      task("TASK_STATE_WORKING", [userMessage("u1", "hi")], {
        status: { state: "TASK_STATE_WORKING", message: agentMessage("a1", [{ text: "On it." }]) },
        artifacts: [{ artifactId: "r", name: "notes", parts: [{ text: "draft" }] }],
      }),
    );
    expect(view.taskId).toBe(TASK);
    expect(view.contextId).toBe(CONTEXT);
    expect(view.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(view.entries.map((e) => [e.kind, e.id])).toEqual([
      ["user", "u1"],
      ["agent", "a1"],
      ["artifact", "artifact:r"],
    ]);
    expect(view.entries[2]?.parts).toEqual([{ kind: "markdown", text: "draft" }]);
  });

  it("names an agent message by the state it came with: progress, question, auth, final", () => {
    const view = fold(
      status("TASK_STATE_WORKING", agentMessage("m1", [{ text: "thinking" }])),
      status("TASK_STATE_INPUT_REQUIRED", agentMessage("m2", [{ text: "Which?" }, { data: { options: ["red", "blue"] } }])),
      status("TASK_STATE_AUTH_REQUIRED", agentMessage("m3", [{ text: "Sign in" }])),
      status("TASK_STATE_COMPLETED", agentMessage("m4", [{ text: "done" }])),
    );
    expect(view.entries.map((e) => e.kind)).toEqual(["agent", "question", "auth", "final"]);
    const question = view.entries[1];
    expect(question?.options).toEqual(["red", "blue"]);
    expect(question?.parts).toEqual([{ kind: "markdown", text: "Which?" }]);
    expect(view.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("shows a final task's last word as final when the task comes before its event", () => {
    const reason = agentMessage("m2", [{ text: "Task canceled: canceled by request" }]);
    const progress = agentMessage("m1", [{ text: "Working on it." }]);
    // A cancel's answer (the task as it ended, its status message in its history too) can
    // reach the page before the stream's event, which then adds nothing.
    const ended = event({
      task: {
        id: TASK,
        contextId: CONTEXT,
        status: { state: "TASK_STATE_CANCELED", message: reason },
        history: [userMessage("u1", "take your time"), progress, reason],
      },
    });
    const view = fold(
      task("TASK_STATE_SUBMITTED", [userMessage("u1", "take your time")]),
      status("TASK_STATE_WORKING", progress),
      ended,
      status("TASK_STATE_CANCELED", reason),
    );
    expect(view.entries.map((e) => e.kind)).toEqual(["user", "agent", "final"]);
  });

  it("changes the state on a status update that carries no message, adding nothing", () => {
    const view = fold(status("TASK_STATE_SUBMITTED"), status("TASK_STATE_WORKING"));
    expect(view.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(view.entries).toEqual([]);
    expect(view.events).toBe(2);
  });

  it("builds a streamed artifact from its chunks and marks it complete on the last one", () => {
    const streaming = fold(artifact("r", "The answer "), artifact("r", "is ", true));
    expect(streaming.entries).toHaveLength(1);
    expect(streaming.entries[0]?.complete).toBe(false);
    const done = applyEvent(streaming, artifact("r", "**42**.", true, true));
    expect(done.entries[0]?.parts.map((p) => (p.kind === "markdown" ? p.text : "")).join("")).toBe(
      "The answer is **42**.",
    );
    expect(done.entries[0]?.complete).toBe(true);
  });

  it("replaces an artifact that is sent whole again", () => {
    const view = fold(artifact("r", "first", false, true), artifact("r", "second", false, true));
    expect(view.entries).toHaveLength(1);
    expect(view.entries[0]?.parts).toEqual([{ kind: "markdown", text: "second" }]);
  });

  it("reads the plan part into the plan and shows it, and the text saying it, nowhere in the conversation", () => {
    const plan = { steps: [{ id: "a", name: "look", state: "done" }, { id: "b", name: "answer", dependsOn: ["a"] }] };
    const said = "Plan:\n- [x] a: look\n- [ ] b: answer (after a)";
    const view = fold(
      status("TASK_STATE_WORKING", agentMessage("m", [{ text: "Planning." }])),
      status("TASK_STATE_WORKING", agentMessage("p", [{ text: said }, { data: plan, mediaType: PLAN_MEDIA_TYPE }])),
    );
    expect(view.entries.map((e) => e.parts)).toEqual([[{ kind: "markdown", text: "Planning." }]]);
    expect(stepsOf(view.plan, view.state).map((s) => [s.name, s.status])).toEqual([
      ["look", "done"],
      ["answer", "in_progress"],
    ]);
  });

  it("takes the name, plan and sub-tasks from the task extension, in metadata or as a part", () => {
    const ext = {
      name: "Count the files",
      plan: { steps: [{ id: "a", name: "count" }] },
      subTasks: [{ taskId: "child-1", agent: "peer", state: "TASK_STATE_WORKING" }],
    };
    const fromMetadata = fold(task("TASK_STATE_WORKING", [], { metadata: { [TASK_EXT_KEY]: ext } }));
    expect(fromMetadata.name).toBe("Count the files");
    expect(fromMetadata.subTasks).toEqual([{ taskId: "child-1", agent: "peer", state: "TASK_STATE_WORKING" }]);
    expect(fromMetadata.plan?.steps.map((s) => s.name)).toEqual(["count"]);

    const moved = { ...ext, subTasks: [{ taskId: "child-1", agent: "peer", state: "TASK_STATE_COMPLETED" }] };
    const fromPart = applyEvent(
      fromMetadata,
      status("TASK_STATE_WORKING", agentMessage("x", [{ data: moved, mediaType: TASK_MEDIA_TYPE }])),
    );
    expect(fromPart.subTasks[0]?.state).toBe("TASK_STATE_COMPLETED");
    expect(fromPart.entries).toEqual([]);
  });

  it("passes A2UI messages to the renderer in order and adds one entry per surface, after the text", () => {
    const parts = [{ text: "Pick a size" }, ...BUTTON_SURFACE.map((m) => ({ data: m, mediaType: A2UI_MEDIA_TYPE }))];
    const view = fold(status("TASK_STATE_INPUT_REQUIRED", agentMessage("ui", parts)));
    expect(view.a2ui).toEqual(BUTTON_SURFACE);
    expect(view.entries.map((e) => [e.kind, e.surfaceId])).toEqual([
      ["question", ""],
      ["surface", "sizes"],
    ]);
    const update = { version: "v0.9.1", updateDataModel: { surfaceId: "sizes", path: "/x", value: 1 } };
    const again = applyEvent(view, status("TASK_STATE_WORKING", agentMessage("ui2", [{ data: update, mediaType: A2UI_MEDIA_TYPE }])));
    expect(again.a2ui).toHaveLength(3);
    expect(again.entries.filter((e) => e.kind === "surface")).toHaveLength(1);
  });

  it("shows a person's A2UI action as what was pressed, and does not draw it", () => {
    const drawn = fold(status("TASK_STATE_INPUT_REQUIRED", agentMessage("ui", BUTTON_SURFACE.map((m) => ({ data: m, mediaType: A2UI_MEDIA_TYPE })))));
    const action = { version: "v0.9.1", action: { name: "go", surfaceId: "sizes", sourceComponentId: "root", timestamp: "t", context: {} } };
    const sent = Message.fromJSON({ ...userMessage("act", ""), parts: [{ data: action, mediaType: A2UI_MEDIA_TYPE }] });
    const after = addSent(drawn, sent);
    expect(after.a2ui).toBe(drawn.a2ui);
    expect(after.entries.at(-1)?.parts).toEqual([{ kind: "action", name: "go", context: {} }]);
    expect(after.entries.at(-1)?.kind).toBe("user");
  });

  it("keeps an A2UI message that names no surface for the renderer to refuse, adding no entry", () => {
    const view = fold(status("TASK_STATE_WORKING", agentMessage("bad", [{ data: { nonsense: true }, mediaType: A2UI_MEDIA_TYPE }])));
    expect(view.a2ui).toEqual([{ nonsense: true }]);
    expect(view.entries).toEqual([]);
  });

  it("shows a part it cannot draw as a placeholder naming its media type, and files by name", () => {
    const view = fold(
      status(
        "TASK_STATE_WORKING",
        agentMessage("odd", [
          { text: "<svg/>", mediaType: "image/svg+xml" },
          { data: { rows: 3 }, mediaType: "application/vnd.example+json" },
          { url: "https://example.test/report.pdf", filename: "report.pdf", mediaType: "application/pdf" },
          { raw: btoa("abc"), filename: "a.bin", mediaType: "application/octet-stream" },
        ]),
      ),
    );
    expect(view.entries[0]?.parts).toEqual([
      { kind: "placeholder", content: "text", mediaType: "image/svg+xml" },
      { kind: "json", data: { rows: 3 }, mediaType: "application/vnd.example+json" },
      { kind: "file", name: "report.pdf", mediaType: "application/pdf", url: "https://example.test/report.pdf", size: null },
      { kind: "file", name: "a.bin", mediaType: "application/octet-stream", url: "", size: 3 },
    ]);
  });

  it("reads a channel part without showing it", () => {
    const view = fold(
      status("TASK_STATE_WORKING", agentMessage("c", [{ data: { channel: "x" }, mediaType: CHANNEL_MEDIA_TYPE }])),
    );
    expect(view.entries).toEqual([]);
  });

  it("counts an event the SDK does not know and changes nothing else", () => {
    const before = fold(status("TASK_STATE_WORKING"));
    const after = applyEvent(before, event({}));
    expect(after.events).toBe(2);
    expect(after.entries).toBe(before.entries);
    expect(after.state).toBe(before.state);
  });
});

describe("a replay after a resubscribe", () => {
  const history = [userMessage("u1", "hi"), agentMessage("a1", [{ text: "working" }])];

  it("shows nothing twice and adds what came during the break, once", () => {
    const before = fold(
      task("TASK_STATE_WORKING", [userMessage("u1", "hi")]),
      status("TASK_STATE_WORKING", agentMessage("a1", [{ text: "working" }])),
      artifact("r", "part one ", false, false),
    );
    // The stream broke; the new one opens with the task as it stands: the same history,
    // one message more, the artifact now whole, and the task waiting for input.
    const replay = task("TASK_STATE_INPUT_REQUIRED", [...history, agentMessage("a2", [{ text: "Which?" }])], {
      artifacts: [{ artifactId: "r", name: "answer", parts: [{ text: "part one part two" }] }],
    });
    const after = applyEvent(before, replay);
    expect(after.entries.map((e) => e.id)).toEqual(["u1", "a1", "artifact:r", "a2"]);
    expect(after.entries[0]).toBe(before.entries[0]);
    expect(after.entries[2]?.parts).toEqual([{ kind: "markdown", text: "part one part two" }]);
    expect(after.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const twice = applyEvent(after, replay);
    expect(twice.entries).toEqual(after.entries);
  });

  it("takes the same A2UI message once, however often the task is replayed", () => {
    const ui = agentMessage("ui", BUTTON_SURFACE.map((m) => ({ data: m, mediaType: A2UI_MEDIA_TYPE })));
    const replay = task("TASK_STATE_INPUT_REQUIRED", [ui]);
    const view = fold(replay, replay);
    expect(view.a2ui).toHaveLength(2);
  });
});

describe("addSent", () => {
  it("shows a sent message at once as pending, and the agent's echo settles it in place", () => {
    const sent = Message.fromJSON(userMessage("mine", "hello"));
    const pending = addSent(emptyView(), sent);
    expect(pending.entries.map((e) => [e.id, e.pending])).toEqual([["mine", true]]);
    const echoed = applyEvent(pending, task("TASK_STATE_WORKING", [userMessage("mine", "hello")]));
    expect(echoed.entries.map((e) => [e.id, e.pending])).toEqual([["mine", false]]);
  });
});

describe("stepsOf", () => {
  const plan: Plan = {
    steps: [
      { id: "a", name: "a", description: "", dependsOn: [], state: "done" },
      { id: "b", name: "b", description: "", dependsOn: ["a"], state: "pending" },
      { id: "c", name: "c", description: "", dependsOn: ["b"], state: "pending" },
    ],
  };

  it("runs the first step whose dependencies are done, the rest wait", () => {
    expect(stepsOf(plan, TaskState.TASK_STATE_WORKING).map((s) => s.status)).toEqual(["done", "in_progress", "pending"]);
  });

  it("marks the steps a failed task never finished as failed", () => {
    expect(stepsOf(plan, TaskState.TASK_STATE_FAILED).map((s) => s.status)).toEqual(["done", "failed", "failed"]);
  });

  it("marks the steps a completed or cancelled task never finished as skipped, not done", () => {
    expect(stepsOf(plan, TaskState.TASK_STATE_COMPLETED).map((s) => s.status)).toEqual(["done", "skipped", "skipped"]);
    expect(stepsOf(plan, TaskState.TASK_STATE_CANCELED).map((s) => s.status)).toEqual(["done", "skipped", "skipped"]);
  });
});
