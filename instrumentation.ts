// Next.js runs register() once as the server starts. It compiles this file
// for the Edge runtime too, which has no process to stop or to report to:
// the check runs in the Node.js server only (NEXT_RUNTIME is Next's marker of
// the runtime, not a setting), so dev shows no Edge warnings for it.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkSettingsAtStart } = await import("@/lib/start-check");
  checkSettingsAtStart();
  // Reminders due and replies left to go on are looked for by every server that is up (inline runtime).
  const { app } = await import("@/lib/app");
  app().dueWork()?.start();
  // Uploads never sent are removed a day on, on either runtime.
  app().fileSweep().start();
}
