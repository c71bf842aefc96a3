/**
 * The recorded streams both renderers replay (tests/fixtures/streams/, recorded from a real
 * harness by tests/interaction/test_recorded_streams.py): each folds into the view a person
 * must see, summarised the same way as the terminal UI's test does (`seenAs`), so the two
 * reducers cannot drift apart.
 */

import { StreamResponse, taskStateToJSON } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";

import "@/a2a/buffer-shim";
import { stepsOf } from "@/model/task-ext";
import { applyEvent, emptyView, type Entry, type TaskView } from "@/model/timeline";

interface Recording {
  events: Record<string, unknown>[];
  view: { state: string; entries: string[]; plan: string[] };
}

const RECORDINGS = import.meta.glob<Recording>("../../../../tests/fixtures/streams/*.json", {
  eager: true,
  import: "default",
});

function text(entry: Entry): string {
  return entry.parts.map((p) => (p.kind === "markdown" ? p.text : `[${p.kind} ${"mediaType" in p ? p.mediaType : ""}]`)).join("");
}

function line(entry: Entry): string {
  if (entry.kind === "call" && entry.call !== null) {
    return `call ${entry.call.kind} ${entry.call.name}: ${entry.call.state}`;
  }
  if (entry.kind === "artifact") return `artifact ${entry.name}: ${text(entry)}`;
  if (entry.kind === "surface") return `surface ${entry.surfaceId}`;
  const options = entry.options.length > 0 ? ` [${entry.options.join("|")}]` : "";
  return `${entry.kind}: ${text(entry)}${options}`;
}

/** What the view shows, in the renderer-neutral form of tests/interaction/streams.py. */
function seenAs(view: TaskView): Recording["view"] {
  return {
    state: taskStateToJSON(view.state),
    entries: view.entries.map(line),
    plan: stepsOf(view.plan, view.state).map((s) => `${s.id}: ${s.status}`),
  };
}

describe("recorded streams", () => {
  const names = Object.keys(RECORDINGS);

  it("finds the shared recordings", () => {
    expect(names.length).toBeGreaterThanOrEqual(2);
  });

  for (const [path, recording] of Object.entries(RECORDINGS)) {
    it(`folds ${path.split("/").pop() ?? path} into the view a person must see`, () => {
      const view = recording.events.map((e) => StreamResponse.fromJSON(e)).reduce(applyEvent, emptyView());
      expect(seenAs(view)).toEqual(recording.view);
    });
  }
});
