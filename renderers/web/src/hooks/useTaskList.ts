/**
 * `useTaskList`: the caller's tasks (ListTasks), kept current by asking again every few
 * seconds and whenever `refreshKey` changes (the open task moved on).
 */

import { useCallback, useEffect, useRef, useState } from "react";
import type { Task } from "@a2a-js/sdk";

import type { Agent } from "@/a2a/agent";
import { failureOf } from "@/a2a/errors";
import type { Connection } from "@/hooks/useAgent";

const POLL_MS = 4000;

export interface TaskList {
  readonly tasks: readonly Task[];
  readonly loaded: boolean;
  readonly error: string;
  readonly refresh: () => void;
}

export function useTaskList(connection: Connection, refreshKey: string): TaskList {
  const { agent, unreachable, reachable } = connection;
  // Kept with the agent that listed them, so another participant's list is never shown.
  const [listing, setListing] = useState<{ agent: Agent; tasks: readonly Task[] } | null>(null);
  const [error, setError] = useState("");
  const current = listing !== null && listing.agent === agent;
  const busy = useRef(false);

  const refresh = useCallback(() => {
    if (agent === null || busy.current) return;
    busy.current = true;
    agent
      .listTasks()
      .then((tasks) => {
        setListing({ agent, tasks });
        setError("");
        reachable();
      })
      .catch((caught: unknown) => {
        const failure = failureOf(caught, "ListTasks");
        if (failure.unreachable) unreachable(failure.message);
        else setError(failure.code ? `${failure.message} (${failure.code})` : failure.message);
      })
      .finally(() => {
        busy.current = false;
      });
  }, [agent, reachable, unreachable]);

  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, POLL_MS);
    return () => clearInterval(timer);
  }, [refresh, refreshKey]);

  return { tasks: current ? listing.tasks : [], loaded: current, error, refresh };
}
