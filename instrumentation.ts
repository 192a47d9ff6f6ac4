// Next.js runs register() once as the server starts: a bad setting stops it
// here, with the one line that names it, instead of failing some later turn.
export async function register() {
  const { env } = await import("@/lib/env");
  try {
    env();
  } catch (error) {
    console.error(`[threadline] ${(error as Error).message}`);
    process.exit(1);
  }
}
