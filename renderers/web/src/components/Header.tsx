import { Activity, IdCard, Menu, Moon, Sun } from "lucide-react";
import { useState } from "react";

import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { cn } from "@/lib/utils";
import type { Theme } from "@/hooks/useTheme";

/** The top bar: the agent, the participant this page speaks as, and the panels' toggles. */
export function Header({
  agentName,
  online,
  participant,
  onParticipant,
  needsKey,
  apiKey,
  onApiKey,
  theme,
  onTheme,
  onMenu,
  onCard,
  onInspector,
  inspecting,
}: {
  agentName: string;
  online: boolean;
  participant: string;
  onParticipant: (id: string) => void;
  /** The agent answers only a call with a key: ask for it (the key names the participant). */
  needsKey: boolean;
  apiKey: string;
  onApiKey: (key: string) => void;
  theme: Theme;
  onTheme: () => void;
  onMenu: () => void;
  onCard: () => void;
  onInspector: () => void;
  inspecting: boolean;
}) {
  const [draft, setDraft] = useState(participant);
  return (
    <header className="flex h-14 shrink-0 items-center gap-2 border-b px-3">
      <Button variant="ghost" size="icon" className="md:hidden" aria-label="Tasks" onClick={onMenu}>
        <Menu />
      </Button>
      <div className="flex min-w-0 items-center gap-2">
        <span
          className={cn("size-2 shrink-0 rounded-full", online ? "bg-good" : "bg-waiting")}
          aria-label={online ? "connected" : "not connected"}
          role="img"
        />
        <span className="truncate font-semibold max-[400px]:hidden">{agentName || "tiny-harness"}</span>
      </div>
      {needsKey ? (
        <KeyField apiKey={apiKey} onApiKey={onApiKey} />
      ) : (
        <form
          className="ml-auto flex items-center gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            onParticipant(draft.trim());
          }}
        >
          <label htmlFor="participant" className="hidden text-xs text-muted-foreground sm:block">
            You are
          </label>
          <Input
            id="participant"
            value={draft}
            placeholder="participant id"
            className="h-8 w-24 sm:w-40"
            onChange={(event) => setDraft(event.target.value)}
            onBlur={() => draft.trim() !== participant && onParticipant(draft.trim())}
            aria-label="Participant id"
          />
        </form>
      )}
      <Button variant="ghost" size="icon" aria-label="Agent card" onClick={onCard}>
        <IdCard />
      </Button>
      <Button
        variant={inspecting ? "secondary" : "ghost"}
        size="icon"
        aria-label="Event inspector"
        aria-pressed={inspecting}
        onClick={onInspector}
      >
        <Activity />
      </Button>
      <Button variant="ghost" size="icon" aria-label={theme === "dark" ? "Light theme" : "Dark theme"} onClick={onTheme}>
        {theme === "dark" ? <Sun /> : <Moon />}
      </Button>
    </header>
  );
}

/** The key the agent asks for, kept like the participant id; shown as dots. */
function KeyField({ apiKey, onApiKey }: { apiKey: string; onApiKey: (key: string) => void }) {
  const [draft, setDraft] = useState(apiKey);
  return (
    <form
      className="ml-auto flex items-center gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        onApiKey(draft.trim());
      }}
    >
      <label htmlFor="api-key" className="hidden text-xs text-muted-foreground sm:block">
        {apiKey ? "Signed in" : "Sign in"}
      </label>
      <Input
        id="api-key"
        type="password"
        autoComplete="off"
        value={draft}
        placeholder="API key"
        className="h-8 w-28 sm:w-48"
        onChange={(event) => setDraft(event.target.value)}
        onBlur={() => draft.trim() !== apiKey && onApiKey(draft.trim())}
        aria-label="API key"
      />
    </form>
  );
}
