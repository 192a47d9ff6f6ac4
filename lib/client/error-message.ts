// What a failed action tells the user: the API client's errors already carry a
// sentence for them (an AppError's message); anything else thrown gets the
// action's own fallback.

export function errorMessage(error: unknown, fallback: string): string {
  return error instanceof Error ? error.message : fallback;
}
