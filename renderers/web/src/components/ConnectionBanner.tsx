import { WifiOff } from "lucide-react";
import { useEffect, useState } from "react";

/** Shown while the server does not answer: what failed, and when the page tries again. */
export function ConnectionBanner({ problem, retryAt }: { problem: string; retryAt: number | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, []);
  const seconds = retryAt === null ? null : Math.max(0, Math.ceil((retryAt - now) / 1000));
  return (
    <div
      role="status"
      className="flex items-center justify-center gap-2 border-b border-waiting/40 bg-waiting/10 px-4 py-2 text-sm"
      data-banner="offline"
    >
      <WifiOff className="size-4 shrink-0 text-waiting" aria-hidden />
      <span>
        The harness is not answering{problem ? ` (${problem})` : ""}.{" "}
        {seconds === null ? "Reconnecting…" : `Retrying in ${seconds} s…`}
      </span>
    </div>
  );
}
