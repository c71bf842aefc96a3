import type { AgentCard } from "@a2a-js/sdk";

import { Badge } from "@/components/ui/badge";

/** A list the card may leave out: a card read as plain JSON need not carry every field. */
function listed<T>(items: readonly T[] | undefined): readonly T[] {
  return items ?? [];
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="border-b px-4 py-4 last:border-b-0">
      <h3 className="mb-2 text-xs font-medium tracking-wide text-muted-foreground uppercase">{title}</h3>
      {children}
    </section>
  );
}

/** The agent card: who the agent is, how to reach it, what it can do. */
export function AgentCardView({ card }: { card: AgentCard }) {
  const capabilities = card.capabilities;
  const flags: [string, boolean][] = [
    ["streaming", Boolean(capabilities?.streaming)],
    ["push notifications", Boolean(capabilities?.pushNotifications)],
    ["extended card", Boolean(capabilities?.extendedAgentCard)],
  ];
  return (
    <div data-card-view>
      <Section title="Agent">
        <p className="font-medium">{card.name}</p>
        {card.description && <p className="mt-1 text-sm text-muted-foreground">{card.description}</p>}
        {card.version && <p className="mt-1 text-xs text-muted-foreground">version {card.version}</p>}
      </Section>
      <Section title="Interfaces">
        <ul className="flex flex-col gap-1.5 text-sm">
          {listed(card.supportedInterfaces).map((face) => (
            <li key={face.protocolBinding + face.url} className="flex flex-wrap items-center gap-2">
              <Badge>{face.protocolBinding}</Badge>
              <span className="text-xs text-muted-foreground">A2A {face.protocolVersion}</span>
              <code className="text-xs break-all">{face.url}</code>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Capabilities">
        <div className="flex flex-wrap gap-1.5">
          {flags.map(([name, on]) => (
            <Badge key={name} tone={on ? "good" : "neutral"}>
              {on ? "✓" : "–"} {name}
            </Badge>
          ))}
        </div>
      </Section>
      <Section title="Extensions">
        <ul className="flex flex-col gap-3 text-sm">
          {listed(capabilities?.extensions).map((ext) => (
            <li key={ext.uri}>
              <code className="text-xs break-all">{ext.uri}</code>
              {ext.required && <Badge className="ml-2" tone="waiting">required</Badge>}
              {ext.description && <p className="mt-0.5 text-muted-foreground">{ext.description}</p>}
            </li>
          ))}
        </ul>
      </Section>
      <Section title="Skills">
        <ul className="flex flex-col gap-3 text-sm">
          {listed(card.skills).map((skill) => (
            <li key={skill.id}>
              <p className="font-medium">{skill.name}</p>
              {skill.description && <p className="text-muted-foreground">{skill.description}</p>}
              {listed(skill.tags).length > 0 && (
                <div className="mt-1 flex flex-wrap gap-1">
                  {skill.tags.map((tag) => (
                    <Badge key={tag}>{tag}</Badge>
                  ))}
                </div>
              )}
              {listed(skill.examples).map((example) => (
                <p key={example} className="mt-1 text-xs text-muted-foreground italic">“{example}”</p>
              ))}
            </li>
          ))}
        </ul>
      </Section>
    </div>
  );
}
