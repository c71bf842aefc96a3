import { Ban, Check, ChevronRight, Cpu, LoaderCircle, CircleSlash, Wrench, X } from "lucide-react";
import { memo } from "react";

import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";
import { duration, type CallState, type CallView as Call } from "@/model/calls";

const STATES: Record<CallState, { label: string; tone: "busy" | "good" | "bad" | "waiting"; icon: typeof Check }> = {
  started: { label: "running", tone: "busy", icon: LoaderCircle },
  completed: { label: "completed", tone: "good", icon: Check },
  failed: { label: "failed", tone: "bad", icon: X },
  vetoed: { label: "vetoed", tone: "waiting", icon: Ban },
  not_retried: { label: "not retried", tone: "bad", icon: CircleSlash },
};

/** One call: a tool call as a folded block, a model call as a quiet line. */
export const CallView = memo(function CallView({ call }: { call: Call }) {
  return call.kind === "tool" ? <ToolBlock call={call} /> : <ModelLine call={call} />;
});

/** A tool call, folded to its name and state; opened, its arguments and result as JSON. */
function ToolBlock({ call }: { call: Call }) {
  const state = STATES[call.state];
  const Icon = state.icon;
  const why = call.state !== "completed" && call.state !== "started";
  const shown = call.result?.length ?? 0;
  const whole = call.resultChars ?? 0;
  const cut = call.result?.endsWith("…") === true && whole > shown;
  return (
    <details className="group ml-10 rounded-lg border bg-card text-sm" data-call={call.state} data-tool={call.name}>
      <summary className="flex cursor-pointer list-none items-center gap-2 px-3 py-2 [&::-webkit-details-marker]:hidden">
        <ChevronRight className="size-3.5 text-muted-foreground transition-transform group-open:rotate-90" aria-hidden />
        <Wrench className="size-3.5 text-muted-foreground" aria-hidden />
        <span className="truncate font-mono text-xs">{call.name}</span>
        <Badge tone={state.tone} className="ml-auto">
          <Icon className={cn(call.state === "started" && "animate-spin")} aria-hidden />
          {state.label}
        </Badge>
        {call.durationMs !== null && <span className="text-xs text-muted-foreground">{duration(call.durationMs)}</span>}
      </summary>
      <div className="flex flex-col gap-2 border-t px-3 py-2">
        {call.arguments !== null && (
          <Section title="Arguments" data-call-part="arguments">
            {JSON.stringify(call.arguments, null, 2)}
          </Section>
        )}
        {call.result !== null && (
          <Section title={why ? "Why" : "Result"} data-call-part="result" tone={why ? "bad" : undefined}>
            {resultText(call.result)}
          </Section>
        )}
        {cut && (
          <p className="text-xs text-muted-foreground">
            Cut: the result has {NUMBER.format(whole)} characters.
          </p>
        )}
        {call.arguments === null && call.result === null && (
          <p className="text-xs text-muted-foreground">
            {call.state === "started" ? "Running…" : "This server shows only the names and outcomes of calls."}
          </p>
        )}
      </div>
    </details>
  );
}

function Section({
  title,
  tone,
  children,
  ...rest
}: {
  title: string;
  tone?: "bad";
  children: string;
  "data-call-part": string;
}) {
  return (
    <div {...rest}>
      <p className={cn("mb-1 text-xs font-medium text-muted-foreground", tone === "bad" && "text-destructive")}>{title}</p>
      <pre className="max-h-64 overflow-auto rounded-md bg-muted p-2 font-mono text-xs whitespace-pre-wrap">{children}</pre>
    </div>
  );
}

/** A result that is JSON is shown indented; any other text as it came. */
function resultText(result: string): string {
  try {
    const parsed: unknown = JSON.parse(result);
    return typeof parsed === "object" && parsed !== null ? JSON.stringify(parsed, null, 2) : result;
  } catch {
    return result;
  }
}

const NUMBER = new Intl.NumberFormat("en");

/** A model call: which model, its tokens, its time and its cost, in one quiet line. */
function ModelLine({ call }: { call: Call }) {
  const bits: string[] = [];
  if (call.state === "started") bits.push("thinking…");
  else if (call.state !== "completed") bits.push(STATES[call.state].label);
  if (call.inputTokens !== null) bits.push(`${NUMBER.format(call.inputTokens)} in`);
  if (call.outputTokens !== null) bits.push(`${NUMBER.format(call.outputTokens)} out`);
  if (call.durationMs !== null) bits.push(duration(call.durationMs));
  if (call.costUsd !== null) bits.push(`$${call.costUsd.toFixed(4)}`);
  return (
    <p className="ml-10 flex items-center gap-1.5 text-xs text-muted-foreground" data-call={call.state} data-model={call.name}>
      <Cpu className={cn("size-3", call.state === "started" && "animate-pulse")} aria-hidden />
      <span className="font-mono">{call.name}</span>
      {bits.length > 0 && <span>· {bits.join(" · ")}</span>}
      {call.result !== null && call.state !== "completed" && <span className="text-destructive">{call.result}</span>}
    </p>
  );
}
