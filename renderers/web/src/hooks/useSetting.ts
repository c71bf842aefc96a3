/** `useSetting`: one setting kept in localStorage, as React state. */

import { useCallback, useState } from "react";

import { load, save } from "@/lib/storage";

export function useSetting(key: string, fallback: string): [string, (value: string) => void] {
  const [value, setValue] = useState(() => load(key, fallback));
  const set = useCallback(
    (next: string) => {
      save(key, next);
      setValue(next);
    },
    [key],
  );
  return [value, set];
}
