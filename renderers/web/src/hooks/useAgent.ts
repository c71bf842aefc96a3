/**
 * `useAgent`: the harness this page is served by, opened for the participant, and whether it
 * answers. Until the card can be read (the server is down or restarting) it retries with
 * backoff; a call that finds the server gone reports it (`unreachable`), which shows the
 * banner until a call succeeds again (`reachable`).
 */

import { useCallback, useEffect, useState } from "react";

import { Agent } from "@/a2a/agent";
import { failureOf } from "@/a2a/errors";
import { backoffMs, sleep, stopped } from "@/hooks/backoff";

export interface Connection {
  readonly agent: Agent | null;
  readonly online: boolean;
  /** What the last failed call said, while the server is not answering. */
  readonly problem: string;
  /** When the next attempt to open the agent is due (ms since the epoch), or null. */
  readonly retryAt: number | null;
  readonly unreachable: (problem: string) => void;
  readonly reachable: () => void;
}

export function useAgent(baseUrl: string, participant: string, apiKey = ""): Connection {
  // Kept with what it was opened for, so a new participant (or key) never sees the old agent.
  const key = `${baseUrl} ${participant} ${apiKey}`;
  const [opened, setOpened] = useState<{ key: string; agent: Agent } | null>(null);
  const agent = opened?.key === key ? opened.agent : null;
  const [online, setOnline] = useState(true);
  const [problem, setProblem] = useState("");
  const [retryAt, setRetryAt] = useState<number | null>(null);

  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      for (let attempt = 1; !stop.signal.aborted; attempt++) {
        try {
          const fresh = await Agent.open(baseUrl, participant, apiKey);
          if (stopped(stop)) return;
          setOpened({ key, agent: fresh });
          setOnline(true);
          setRetryAt(null);
          return;
        } catch (error) {
          const wait = backoffMs(attempt);
          setOnline(false);
          setProblem(failureOf(error, "reading the agent card").message);
          setRetryAt(Date.now() + wait);
          await sleep(wait, stop.signal);
        }
      }
    })();
    return () => stop.abort();
  }, [baseUrl, participant, apiKey, key]);

  const unreachable = useCallback((said: string) => {
    setOnline(false);
    setProblem(said);
  }, []);
  const reachable = useCallback(() => {
    setOnline(true);
    setRetryAt(null);
  }, []);
  return { agent, online, problem, retryAt, unreachable, reachable };
}
