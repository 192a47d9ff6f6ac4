import "server-only";
import type { App } from "@/lib/app";
import { stepsMayMove } from "@/lib/inngest/checkpointing";
import { realtimePublisher } from "@/lib/inngest/publisher";
import { createChatTurnCancelledFunction } from "./functions/chat-turn-cancelled";
import { createChatTurnFunction } from "./functions/chat-turn";
import { createCompactThreadFunction } from "./functions/compact-thread";
import { createLearnMemoryFunction } from "./functions/learn-memory";
import { createPostReminderFunction } from "./functions/post-reminder";

// The durable entry points, as route handlers are the HTTP ones: each
// function is thin and calls its wing (a turn, compaction, reminders, memory); the
// client that sends their events and serves them is the app's
// (lib/inngest/client.ts), and /api/inngest serves this list.

/** The Inngest functions over an app's parts. */
export function inngestFunctions(app: App) {
  const client = app.inngest();
  const turnDeps = { ...app, publisher: realtimePublisher(client), stepsMayMove: stepsMayMove(app.config) };
  return [
    createChatTurnFunction(client, turnDeps),
    createChatTurnCancelledFunction(client, turnDeps),
    createCompactThreadFunction(client, app),
    createPostReminderFunction(client, app),
    createLearnMemoryFunction(client, app),
  ];
}
