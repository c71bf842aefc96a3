import { ArrowUp } from "lucide-react";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";

import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/textarea";

/**
 * The message box, and the open question's options as buttons above it. Enter sends,
 * Shift+Enter breaks the line. The text stays until the agent has taken it, so a refused
 * or failed send loses nothing.
 */
export function Composer({
  placeholder,
  options,
  disabled,
  onSend,
}: {
  placeholder: string;
  options: readonly string[];
  disabled: boolean;
  onSend: (text: string) => Promise<boolean>;
}) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    const focus = (event: globalThis.KeyboardEvent) => {
      if (event.key === "/" && document.activeElement === document.body) {
        event.preventDefault();
        box.current?.focus();
      }
    };
    addEventListener("keydown", focus);
    return () => removeEventListener("keydown", focus);
  }, []);

  async function submit(value: string, fromBox: boolean): Promise<void> {
    if (!value.trim() || sending || disabled) return;
    setSending(true);
    const taken = await onSend(value);
    setSending(false);
    if (taken && fromBox) setText("");
    box.current?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>): void {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit(text, true);
    }
  }

  return (
    <div className="border-t bg-background/80 backdrop-blur">
      <div className="mx-auto flex max-w-3xl flex-col gap-2 px-4 py-3">
        {options.length > 0 && (
          <div className="flex flex-wrap gap-2" role="group" aria-label="Answer with an option">
            {options.map((option) => (
              <Button
                key={option}
                variant="outline"
                size="sm"
                disabled={sending || disabled}
                onClick={() => void submit(option, false)}
                data-option={option}
              >
                {option}
              </Button>
            ))}
          </div>
        )}
        <form
          className="flex items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            void submit(text, true);
          }}
        >
          <Textarea
            ref={box}
            value={text}
            rows={1}
            placeholder={placeholder}
            aria-label="Message"
            className="max-h-48"
            onChange={(event) => setText(event.target.value)}
            onKeyDown={onKeyDown}
          />
          <Button type="submit" size="icon" aria-label="Send" disabled={!text.trim() || sending || disabled}>
            <ArrowUp />
          </Button>
        </form>
      </div>
    </div>
  );
}
