import { memo, useState } from "react";
import { StreamResponse, TaskState } from "@a2a-js/sdk";

import type { LoggedEvent } from "@/hooks/useTaskSession";
import { stateLabel } from "@/model/states";

function summary(event: StreamResponse): [string, string] {
  const payload = event.payload;
  switch (payload?.$case) {
    case "task":
      return ["task", stateLabel(payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)[0]];
    case "statusUpdate":
      return ["status-update", stateLabel(payload.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)[0]];
    case "artifactUpdate": {
      const artifact = payload.value.artifact;
      const how = payload.value.append ? "append" : "whole";
      return ["artifact-update", `${artifact?.name || artifact?.artifactId || ""} · ${how}${payload.value.lastChunk ? " · last" : ""}`];
    }
    case "message":
      return ["message", payload.value.messageId.slice(0, 8)];
    case undefined:
      return ["unknown", ""];
  }
}

const Row = memo(function Row({ logged }: { logged: LoggedEvent }) {
  const [open, setOpen] = useState(false);
  const [kind, detail] = summary(logged.event);
  return (
    <li className="border-b last:border-b-0" data-event={kind}>
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        className="flex w-full items-baseline gap-2 px-4 py-2 text-left font-mono text-xs outline-none hover:bg-accent focus-visible:bg-accent"
      >
        <span className="w-8 shrink-0 text-muted-foreground">#{logged.n}</span>
        <span className="font-medium">{kind}</span>
        <span className="truncate text-muted-foreground">{detail}</span>
        <span className="ml-auto shrink-0 text-muted-foreground">
          {new Date(logged.at).toLocaleTimeString([], { hour12: false })}
        </span>
      </button>
      {open && (
        <pre className="overflow-x-auto bg-muted px-4 py-3 font-mono text-[11px] leading-snug">
          {JSON.stringify(StreamResponse.toJSON(logged.event), null, 2)}
        </pre>
      )}
    </li>
  );
});

/** The open task's raw `StreamResponse` events, in the order they came; each opens to its JSON. */
export function EventInspector({ log }: { log: readonly LoggedEvent[] }) {
  if (log.length === 0) {
    return <p className="px-4 py-6 text-sm text-muted-foreground">No events yet for the open task.</p>;
  }
  return (
    <ol aria-label="Events" data-inspector>
      {log.map((logged) => (
        <Row key={logged.n} logged={logged} />
      ))}
    </ol>
  );
}
