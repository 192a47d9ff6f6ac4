import { serve } from "inngest/next";
import { inngest } from "@/inngest/client";
import { chatTurn } from "@/inngest/functions/chat-turn";

// Inngest calls this endpoint to run the chat function's steps.
export const { GET, POST, PUT } = serve({ client: inngest, functions: [chatTurn] });
