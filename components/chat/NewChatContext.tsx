"use client";

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { useRouter } from "next/navigation";

interface NewChatValue {
  /** Changes each time the user asks for a new chat; the "/" page keys its chat with it. */
  newChatKey: number;
  startNewChat: () => void;
}

const NewChatContext = createContext<NewChatValue | null>(null);

export function NewChatProvider({ children }: { children: ReactNode }) {
  const router = useRouter();
  const [newChatKey, setNewChatKey] = useState(0);

  // A new chat may be asked for while "/" is already rendered (its URL rewritten
  // to /c/<id> after the first reply): navigating alone would keep the old
  // conversation state, so the key change forces a fresh one.
  const startNewChat = useCallback(() => {
    setNewChatKey((key) => key + 1);
    router.push("/");
  }, [router]);

  const value = useMemo(() => ({ newChatKey, startNewChat }), [newChatKey, startNewChat]);
  return <NewChatContext.Provider value={value}>{children}</NewChatContext.Provider>;
}

export function useNewChat(): NewChatValue {
  const value = useContext(NewChatContext);
  if (!value) throw new Error("useNewChat must be used inside <NewChatProvider>.");
  return value;
}
