// The app's Inngest client lives in lib/ (the runtime sends events with it);
// the functions and the serve route take it from here.
export { inngest } from "@/lib/inngest/client";
