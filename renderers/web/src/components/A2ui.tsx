/**
 * A2UI surfaces drawn by the official renderer (`@a2ui/react`'s `A2uiSurface` and basic
 * catalog, fed by `@a2ui/web_core`'s `MessageProcessor`). One processor per open task takes
 * the task's A2UI messages in order; a message it refuses marks its surface with an error
 * card (the other surfaces go on), and a surface that fails to draw shows the same card,
 * never a blank page. A person's action goes back to the task through `onAction`.
 */

import { MarkdownContext, A2uiSurface, basicCatalog } from "@a2ui/react/v0_9";
import type { ReactComponentImplementation } from "@a2ui/react/v0_9";
import { A2uiError, Catalog, MessageProcessor } from "@a2ui/web_core/v0_9";
import type { A2uiClientAction, A2uiMessage } from "@a2ui/web_core/v0_9";
import { TriangleAlert } from "lucide-react";
import {
  Component,
  createContext,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type ReactNode,
} from "react";

import { renderMarkdown } from "@/lib/markdown";
import { surfaceIdOf } from "@/model/timeline";

/** The basic catalog's id in earlier 0.9 drafts, which agents may still name. */
const DRAFT_BASIC_CATALOG_ID = "https://a2ui.org/specification/v0_9/basic_catalog.json";

const CATALOGS = [
  basicCatalog,
  new Catalog<ReactComponentImplementation>(
    DRAFT_BASIC_CATALOG_ID,
    [...basicCatalog.components.values()],
    [...basicCatalog.functions.values()],
  ),
];

const markdown = (text: string): Promise<string> => Promise.resolve(renderMarkdown(text));

interface Surfaces {
  readonly processor: MessageProcessor<ReactComponentImplementation>;
  readonly errors: ReadonlyMap<string, string>;
  readonly version: number;
}

const SurfacesContext = createContext<Surfaces | null>(null);

/** Feeds `messages` (all of them, in order, growing) to one processor for `children`. */
export function A2uiHost({
  messages,
  onAction,
  children,
}: {
  messages: readonly unknown[];
  onAction: (action: A2uiClientAction) => void;
  children: ReactNode;
}) {
  const [processor] = useState(
    () => new MessageProcessor(CATALOGS, undefined, { version: "v0.9.1" }),
  );
  // One subscription for the processor's life: the renderer's emitter must not see its
  // listeners change while it calls them.
  const act = useRef(onAction);
  useEffect(() => {
    act.current = onAction;
  }, [onAction]);
  useEffect(() => {
    const subscription = processor.model.onAction.subscribe((action) => act.current(action));
    return () => subscription.unsubscribe();
  }, [processor]);
  const fed = useRef(0);
  const [errors] = useState(() => new Map<string, string>());
  const [version, setVersion] = useState(0);

  useLayoutEffect(() => {
    if (fed.current >= messages.length) return;
    for (const message of messages.slice(fed.current)) {
      try {
        processor.processMessages([message as A2uiMessage]);
      } catch (error) {
        const surfaceId = surfaceIdOf(message) ?? "";
        if (!errors.has(surfaceId)) errors.set(surfaceId, describe(error));
      }
    }
    fed.current = messages.length;
    setVersion((v) => v + 1);
  }, [messages, processor, errors]);

  return (
    <SurfacesContext.Provider value={{ processor, errors, version }}>
      <MarkdownContext.Provider value={markdown}>{children}</MarkdownContext.Provider>
    </SurfacesContext.Provider>
  );
}

/** One surface, where the conversation first mentions it. */
export function A2uiSurfaceEntry({ surfaceId }: { surfaceId: string }) {
  const surfaces = useContext(SurfacesContext);
  const error = surfaces?.errors.get(surfaceId);
  if (error !== undefined) return <SurfaceError surfaceId={surfaceId} message={error} />;
  const surface = surfaces?.processor.model.getSurface(surfaceId);
  if (surface === undefined) {
    return <p className="text-sm text-muted-foreground italic">The surface “{surfaceId}” was closed.</p>;
  }
  return (
    <div className="a2ui-host rounded-xl border p-4" data-surface={surfaceId}>
      <SurfaceBoundary surfaceId={surfaceId}>
        <A2uiSurface surface={surface} />
      </SurfaceBoundary>
    </div>
  );
}

function SurfaceError({ surfaceId, message }: { surfaceId: string; message: string }) {
  return (
    <div
      role="alert"
      className="flex gap-3 rounded-xl border border-destructive/40 p-4 text-sm"
      data-surface-error={surfaceId}
    >
      <TriangleAlert className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden />
      <div>
        <p className="font-medium">The agent sent an interface this page cannot draw</p>
        <p className="mt-1 break-words text-muted-foreground">
          Surface “{surfaceId || "unnamed"}”: {message}
        </p>
      </div>
    </div>
  );
}

class SurfaceBoundary extends Component<{ surfaceId: string; children: ReactNode }, { error: string }> {
  override state = { error: "" };

  static getDerivedStateFromError(error: unknown): { error: string } {
    return { error: describe(error) };
  }

  override render() {
    if (this.state.error) return <SurfaceError surfaceId={this.props.surfaceId} message={this.state.error} />;
    return this.props.children;
  }
}

function describe(error: unknown): string {
  if (error instanceof A2uiError) return `${error.message} (${error.code})`;
  return error instanceof Error ? error.message : String(error);
}
