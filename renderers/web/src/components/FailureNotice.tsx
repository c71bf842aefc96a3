import { CircleAlert, X } from "lucide-react";

import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import type { CallFailure } from "@/a2a/errors";

/** An error the agent answered with: its message and code; the task is left as it was. */
export function FailureNotice({ failure, onDismiss }: { failure: CallFailure; onDismiss: () => void }) {
  return (
    <div className="mx-auto w-full max-w-3xl px-4 pt-3">
      <Alert variant="destructive" data-failure={failure.code}>
        <CircleAlert aria-hidden />
        <AlertTitle className="pr-8">{failure.message}</AlertTitle>
        <AlertDescription>
          {failure.code ? `Error code ${failure.code}. ` : ""}Nothing you wrote was lost.
        </AlertDescription>
        <Button variant="ghost" size="icon" className="absolute top-1.5 right-1.5 size-7" aria-label="Dismiss" onClick={onDismiss}>
          <X />
        </Button>
      </Alert>
    </div>
  );
}
