/** `useTheme`: light or dark, kept across visits; the system's choice until one is made. */

import { useEffect } from "react";

import { useSetting } from "@/hooks/useSetting";

export type Theme = "light" | "dark";

function systemTheme(): Theme {
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function useTheme(): [Theme, () => void] {
  const [chosen, setChosen] = useSetting("theme", "");
  const theme: Theme = chosen === "dark" || chosen === "light" ? chosen : systemTheme();
  useEffect(() => {
    document.documentElement.classList.toggle("dark", theme === "dark");
  }, [theme]);
  return [theme, () => setChosen(theme === "dark" ? "light" : "dark")];
}
