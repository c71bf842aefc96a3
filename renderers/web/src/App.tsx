/**
 * The page: the task list on the left, the open task in the middle (its plan, its
 * conversation, the message box), and the event inspector and agent card as panels. It talks
 * to the harness that served it, on the same origin.
 */

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { A2uiClientAction } from "@a2ui/web_core/v0_9";

import { A2uiHost } from "@/components/A2ui";
import { AgentCardView } from "@/components/AgentCardView";
import { Composer } from "@/components/Composer";
import { CallTimeline } from "@/components/CallTimeline";
import { ConnectionBanner } from "@/components/ConnectionBanner";
import { Conversation } from "@/components/Conversation";
import { EventInspector } from "@/components/EventInspector";
import { FailureNotice } from "@/components/FailureNotice";
import { Header } from "@/components/Header";
import { PlanPanel } from "@/components/PlanPanel";
import { TaskHeader } from "@/components/TaskHeader";
import { TaskList } from "@/components/TaskList";
import { Sheet } from "@/components/ui/sheet";
import { useAgent } from "@/hooks/useAgent";
import { useSetting } from "@/hooks/useSetting";
import { useTaskList } from "@/hooks/useTaskList";
import { useTaskSession } from "@/hooks/useTaskSession";
import { useTheme } from "@/hooks/useTheme";
import { putTaskInHash, taskInHash } from "@/lib/hash";
import { knownTitles, rememberTitle } from "@/lib/storage";
import { cn } from "@/lib/utils";
import { isFinal, isPaused } from "@/model/states";
import type { TaskView } from "@/model/timeline";

const BASE_URL = location.origin;

export function App() {
  const [participant, setParticipant] = useSetting("participant", "");
  const [apiKey, setApiKey] = useSetting("key", "");
  const [theme, toggleTheme] = useTheme();
  const connection = useAgent(BASE_URL, participant, apiKey);
  const session = useTaskSession(connection);
  const { view } = session;
  const list = useTaskList(connection, `${view.taskId}:${view.state}`);
  const [menu, setMenu] = useState(false);
  const [card, setCard] = useState(false);
  const [inspecting, setInspecting] = useState(false);
  const [timeline, setTimeline] = useState(false);
  const { agent } = connection;
  const { open } = session;

  // The task the address names is opened once the agent is known; until then the address
  // keeps it (a reload before the card loads still reopens it).
  const [hashTask] = useState(taskInHash);
  const pending = useRef(hashTask);
  useEffect(() => {
    if (agent === null || !pending.current) return;
    open(pending.current);
    pending.current = "";
  }, [agent, open]);

  useEffect(() => {
    if (!pending.current) putTaskInHash(view.taskId);
    const first = firstText(view);
    if (view.taskId && first) rememberTitle(view.taskId, first);
  }, [view]);

  const openTask = useCallback(
    (taskId: string) => {
      setMenu(false);
      open(taskId);
    },
    [open],
  );
  const newTask = useCallback(() => {
    setMenu(false);
    session.close();
  }, [session]);

  const onAction = useCallback(
    (action: A2uiClientAction) => void session.sendAction(action),
    [session],
  );

  const question = openQuestion(view);
  const working = view.taskId !== "" && !isFinal(view.state) && !isPaused(view.state);
  const title = useMemo(() => titleOfView(view), [view]);
  const calls = useMemo(() => view.entries.flatMap((e) => (e.call === null ? [] : [e.call])), [view.entries]);

  return (
    <div className="flex h-full flex-col">
      <Header
        agentName={agent?.card.name ?? ""}
        online={connection.online && agent !== null}
        participant={participant}
        onParticipant={setParticipant}
        needsKey={agent?.requiresCredential ?? false}
        apiKey={apiKey}
        onApiKey={setApiKey}
        theme={theme}
        onTheme={toggleTheme}
        onMenu={() => setMenu(!menu)}
        onCard={() => setCard(true)}
        onInspector={() => setInspecting(!inspecting)}
        inspecting={inspecting}
      />
      {(!connection.online || agent === null) && connection.problem && (
        <ConnectionBanner problem={connection.problem} retryAt={connection.retryAt} />
      )}
      <div className="flex min-h-0 flex-1">
        <aside
          className={cn(
            "w-72 shrink-0 border-r bg-background",
            "max-md:fixed max-md:inset-y-14 max-md:left-0 max-md:z-20 max-md:shadow-lg",
            !menu && "max-md:hidden",
          )}
        >
          <TaskList
            tasks={list.tasks}
            loaded={list.loaded}
            error={list.error}
            openId={view.taskId}
            onOpen={openTask}
            onNew={newTask}
            onRefresh={list.refresh}
          />
        </aside>
        <main className="flex min-w-0 flex-1 flex-col">
          {view.taskId && (
            <TaskHeader
              view={view}
              title={title}
              onCancel={() => void session.cancel()}
              timeline={timeline}
              onTimeline={() => setTimeline(!timeline)}
            />
          )}
          <PlanPanel plan={view.plan} subTasks={view.subTasks} state={view.state} />
          {session.failure && <FailureNotice failure={session.failure} onDismiss={session.dismiss} />}
          {view.entries.length === 0 && !view.taskId ? (
            <Welcome />
          ) : (
            <A2uiHost key={view.taskId || "new"} messages={view.a2ui} onAction={onAction}>
              <Conversation entries={view.entries} working={working} />
            </A2uiHost>
          )}
          <Composer
            placeholder={placeholderFor(view)}
            options={question}
            disabled={agent === null}
            onSend={session.send}
          />
        </main>
        {timeline && view.taskId && (
          <aside
            className="w-80 shrink-0 overflow-y-auto border-l max-lg:fixed max-lg:inset-y-14 max-lg:right-0 max-lg:z-20 max-lg:w-full max-lg:max-w-sm max-lg:bg-background max-lg:shadow-lg"
            aria-label="Timeline"
          >
            <div className="sticky top-0 border-b bg-background px-4 py-3 text-sm font-semibold">
              Timeline <span className="font-normal text-muted-foreground">· {calls.length} calls</span>
            </div>
            <CallTimeline calls={calls} trace={view.trace} />
          </aside>
        )}
        {inspecting && (
          <aside
            className="w-96 shrink-0 overflow-y-auto border-l max-lg:fixed max-lg:inset-y-14 max-lg:right-0 max-lg:z-20 max-lg:w-full max-lg:max-w-md max-lg:bg-background max-lg:shadow-lg"
            aria-label="Event inspector"
          >
            <div className="sticky top-0 border-b bg-background px-4 py-3 text-sm font-semibold">
              Events <span className="font-normal text-muted-foreground">· {session.log.length}</span>
            </div>
            <EventInspector log={session.log} />
          </aside>
        )}
      </div>
      <Sheet open={card && agent !== null} title="Agent card" onClose={() => setCard(false)}>
        {agent !== null && <AgentCardView card={agent.card} />}
      </Sheet>
    </div>
  );
}

function Welcome() {
  return (
    <div className="flex flex-1 flex-col items-center justify-center gap-2 px-6 text-center">
      <p className="text-lg font-semibold">What should the agent do?</p>
      <p className="max-w-sm text-sm text-muted-foreground">
        Every task runs as a durable workflow: close the page, come back, and it is still here.
      </p>
    </div>
  );
}

/** The open question's options, while the task waits for an answer. */
function openQuestion(view: TaskView): readonly string[] {
  if (!isPaused(view.state)) return [];
  for (let i = view.entries.length - 1; i >= 0; i--) {
    const entry = view.entries[i];
    if (entry?.kind === "question") return entry.options;
  }
  return [];
}

function placeholderFor(view: TaskView): string {
  if (!view.taskId) return "Describe a new task…";
  if (isPaused(view.state)) return "Answer the agent…";
  if (isFinal(view.state)) return "Follow up (starts a new task in this conversation)…";
  return "Add to the task…";
}

/** The task's name, its first message, or its short id. */
function titleOfView(view: TaskView): string {
  const known = view.taskId ? knownTitles()[view.taskId] : undefined;
  return view.name || firstText(view) || known || `Task ${view.taskId.slice(0, 8)}`;
}

function firstText(view: TaskView): string {
  const first = view.entries.find((e) => e.kind === "user")?.parts[0];
  return first?.kind === "markdown" ? oneLine(first.text) : "";
}

function oneLine(text: string): string {
  const line = text.split(/\s+/).join(" ").trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
