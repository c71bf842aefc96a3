import { Cpu, ExternalLink, Wrench } from "lucide-react";
import { memo, useMemo } from "react";

import { cn } from "@/lib/utils";
import { callTimeline, duration, type CallView } from "@/model/calls";
import type { TraceLink } from "@/model/task-ext";

const NUMBER = new Intl.NumberFormat("en");

const BAR_TONES: Record<CallView["state"], string> = {
  started: "bg-busy animate-pulse",
  completed: "bg-good/70",
  failed: "bg-destructive/70",
  vetoed: "bg-waiting/70",
  not_retried: "bg-destructive/70",
};

/** Every model and tool call of the open task on one time axis, and what they add up to. */
export const CallTimeline = memo(function CallTimeline({
  calls,
  trace,
}: {
  calls: readonly CallView[];
  trace: TraceLink | null;
}) {
  const { bars, totals } = useMemo(() => callTimeline(calls), [calls]);
  const span = Math.max(totals.spanMs, 1);
  return (
    <div className="flex flex-col gap-3 p-4 text-sm">
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-xs" data-totals>
        <dt className="text-muted-foreground">Model calls</dt>
        <dd data-total="model-calls">{totals.modelCalls}</dd>
        <dt className="text-muted-foreground">Tool calls</dt>
        <dd data-total="tool-calls">{totals.toolCalls}</dd>
        <dt className="text-muted-foreground">Tokens in / out</dt>
        <dd data-total="tokens">
          {NUMBER.format(totals.inputTokens)} / {NUMBER.format(totals.outputTokens)}
        </dd>
        <dt className="text-muted-foreground">Cost</dt>
        <dd data-total="cost">{totals.costUsd === null ? "not priced" : `$${totals.costUsd.toFixed(4)}`}</dd>
        <dt className="text-muted-foreground">From first call to last</dt>
        <dd data-total="span">{duration(totals.spanMs)}</dd>
        {trace !== null && (
          <>
            <dt className="text-muted-foreground">Trace</dt>
            <dd className="truncate font-mono" data-trace={trace.traceId}>
              {trace.url === null ? (
                trace.traceId
              ) : (
                <a href={trace.url} target="_blank" rel="noopener noreferrer" className="inline-flex items-center gap-1 underline underline-offset-2">
                  {trace.traceId.slice(0, 12)}
                  <ExternalLink className="size-3" aria-hidden />
                </a>
              )}
            </dd>
          </>
        )}
      </dl>
      {bars.length === 0 ? (
        <p className="text-muted-foreground">No calls yet.</p>
      ) : (
        <ol className="flex flex-col gap-1.5" aria-label="Calls">
          {bars.map(({ call, offsetMs, lengthMs }) => {
            const Icon = call.kind === "model" ? Cpu : Wrench;
            return (
              <li key={call.callId} className="flex flex-col gap-0.5" data-timeline-call={call.name} data-state={call.state}>
                <div className="flex items-center gap-1.5 text-xs">
                  <Icon className="size-3 shrink-0 text-muted-foreground" aria-hidden />
                  <span className="truncate font-mono">{call.name}</span>
                  <span className="ml-auto shrink-0 text-muted-foreground">
                    {call.state === "started" ? "running" : duration(call.durationMs)}
                  </span>
                </div>
                <div className="relative h-1.5 rounded-full bg-muted" aria-hidden>
                  <div
                    className={cn("absolute inset-y-0 rounded-full", BAR_TONES[call.state])}
                    style={{
                      left: `${(100 * offsetMs) / span}%`,
                      width: `max(${(100 * lengthMs) / span}%, 3px)`,
                    }}
                  />
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
});
