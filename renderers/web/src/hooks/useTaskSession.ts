/**
 * `useTaskSession`: the open task, followed live.
 *
 * Every event goes through the reducer (`applyEvent`) and into the inspector's log. The SDK
 * ends a stream at every final event, INPUT_REQUIRED included, and a dropped connection ends
 * it too: while the task is not finished the session subscribes again (SubscribeToTask),
 * backing off while the server does not answer; the task the new stream opens with is folded
 * into what is shown, so nothing appears twice and nothing is missed. An A2A error stops the
 * stream and is shown with its code; the task and what was shown stay as they were.
 */

import { useCallback, useEffect, useRef, useState } from "react";
import { Message, Part, TaskState } from "@a2a-js/sdk";
import type { StreamResponse, Task } from "@a2a-js/sdk";

import { A2UI_MEDIA_TYPE, A2UI_VERSION } from "@/a2a/constants";
import { failureOf, isAbort, type CallFailure } from "@/a2a/errors";
import { backoffMs, sleep, stopped } from "@/hooks/backoff";
import type { Connection } from "@/hooks/useAgent";
import { isFinal } from "@/model/states";
import { addSent, applyEvent, emptyView, type TaskView } from "@/model/timeline";

/** Events the inspector keeps for the open task (the oldest are dropped past this). */
const LOG_LIMIT = 2000;

export interface LoggedEvent {
  readonly n: number;
  readonly at: number;
  readonly event: StreamResponse;
}

export interface Session {
  readonly view: TaskView;
  readonly log: readonly LoggedEvent[];
  readonly failure: CallFailure | null;
  readonly open: (taskId: string) => void;
  readonly close: () => void;
  /** Send `text`; resolves true once the agent has taken it, false when it was refused. */
  readonly send: (text: string) => Promise<boolean>;
  readonly sendAction: (action: unknown) => Promise<boolean>;
  readonly cancel: () => Promise<void>;
  readonly dismiss: () => void;
}

type Start = (signal: AbortSignal) => AsyncGenerator<StreamResponse>;

export function useTaskSession(connection: Connection): Session {
  const { agent, unreachable, reachable } = connection;
  const [view, setView] = useState<TaskView>(emptyView);
  const viewRef = useRef<TaskView>(view);
  const [log, setLog] = useState<readonly LoggedEvent[]>([]);
  const [failure, setFailure] = useState<CallFailure | null>(null);
  const streamRef = useRef<AbortController | null>(null);

  const show = useCallback((next: TaskView) => {
    viewRef.current = next;
    setView(next);
  }, []);

  const fold = useCallback(
    (event: StreamResponse) => {
      const next = applyEvent(viewRef.current, event);
      performance.mark("th:event", { detail: next.events });
      show(next);
      setLog((old) => [...old.slice(-(LOG_LIMIT - 1)), { n: next.events, at: Date.now(), event }]);
    },
    [show],
  );

  const reset = useCallback(
    (next: TaskView) => {
      streamRef.current?.abort();
      streamRef.current = null;
      show(next);
      setLog([]);
      setFailure(null);
    },
    [show],
  );

  /** Follow `start`'s stream, then SubscribeToTask again until the task is final. */
  const follow = useCallback(
    async (start: Start, operation: string, onFirst?: (taken: boolean) => void): Promise<void> => {
      if (agent === null) return;
      streamRef.current?.abort();
      const stop = new AbortController();
      streamRef.current = stop;
      let first = onFirst;
      let stream = start(stop.signal);
      let name = operation;
      for (let attempt = 0; !stop.signal.aborted; ) {
        let got = 0;
        try {
          for await (const event of stream) {
            if (stopped(stop)) return;
            got++;
            attempt = 0;
            first?.(true);
            first = undefined;
            reachable();
            fold(event);
          }
        } catch (error) {
          if (stopped(stop) || isAbort(error)) return;
          const said = failureOf(error, name);
          if (!said.unreachable || first !== undefined) {
            setFailure(said);
            if (said.unreachable) unreachable(said.message);
            first?.(false);
            return;
          }
          unreachable(said.message);
        }
        const { taskId, state } = viewRef.current;
        if (!taskId || isFinal(state)) return;
        if (got === 0) attempt++;
        await sleep(attempt === 0 ? 0 : backoffMs(attempt), stop.signal);
        stream = agent.subscribe(taskId, stop.signal);
        name = "SubscribeToTask";
      }
    },
    [agent, fold, reachable, unreachable],
  );

  const open = useCallback(
    (taskId: string) => {
      reset(emptyView(taskId));
      if (agent === null || !taskId) return;
      // GetTask first: a finished task cannot be subscribed to, and it is shown at once.
      const start: Start = async function* (signal) {
        const task: Task = await agent.getTask(taskId);
        yield taskEvent(task);
        if (!isFinal(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) yield* agent.subscribe(taskId, signal);
      };
      void follow(start, "GetTask", (found) => {
        if (!found) show(emptyView()); // no such task (or not ours): nothing is open
      });
    },
    [agent, follow, reset, show],
  );

  const deliver = useCallback(
    (message: Message): Promise<boolean> => {
      if (agent === null) return Promise.resolve(false);
      const before = viewRef.current;
      if (isFinal(before.state)) {
        // A finished task takes no more messages: this starts a new one in its context.
        reset(emptyView());
      }
      show(addSent(viewRef.current, message));
      setFailure(null);
      return new Promise<boolean>((resolve) => {
        void follow((signal) => agent.send(message, signal), "SendMessage", (taken) => {
          if (!taken) show(before);
          resolve(taken);
        });
      });
    },
    [agent, follow, reset, show],
  );

  const send = useCallback(
    (text: string) => deliver(messageFor(viewRef.current, [Part.fromJSON({ text })])),
    [deliver],
  );

  const sendAction = useCallback(
    (action: unknown) => {
      const body = { version: A2UI_VERSION, action };
      const part = Part.fromJSON({ data: body, mediaType: A2UI_MEDIA_TYPE });
      return deliver(messageFor(viewRef.current, [part]));
    },
    [deliver],
  );

  const cancel = useCallback(async () => {
    const { taskId } = viewRef.current;
    if (agent === null || !taskId) return;
    try {
      const task = await agent.cancel(taskId);
      fold(taskEvent(task));
    } catch (error) {
      setFailure(failureOf(error, "CancelTask"));
    }
  }, [agent, fold]);

  const close = useCallback(() => reset(emptyView()), [reset]);
  const dismiss = useCallback(() => setFailure(null), []);

  useEffect(() => () => streamRef.current?.abort(), []);

  useShownMarks(view.events);
  return { view, log, failure, open, close, send, sendAction, cancel, dismiss };
}

/** `task` as the event a stream opens with. */
function taskEvent(task: Task): StreamResponse {
  return { payload: { $case: "task", value: task } };
}

/** A user message to the open task (or, with none open or a finished one, a new task). */
function messageFor(view: TaskView, parts: Part[]): Message {
  const message = Message.fromJSON({ messageId: crypto.randomUUID(), role: "ROLE_USER" });
  message.parts = parts;
  message.contextId = view.contextId;
  if (view.taskId && !isFinal(view.state)) message.taskId = view.taskId;
  return message;
}

/**
 * Marks when the screen shows the view after `events` events (`th:shown`, beside the
 * `th:event` mark of each arrival): the first frame after React committed it, so the
 * difference is the delay a person sees.
 */
function useShownMarks(events: number): void {
  useEffect(() => {
    if (events === 0) return;
    const frame = requestAnimationFrame(() => {
      setTimeout(() => performance.mark("th:shown", { detail: events }), 0);
    });
    return () => cancelAnimationFrame(frame);
  }, [events]);
}
