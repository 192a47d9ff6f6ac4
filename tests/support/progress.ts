import type pg from "pg";

/**
 * Moves turn_progress's id sequence (forward only) to just below a power of
 * ten, so the next turn's first rows have ids of two lengths: a reader that ordered
 * them as text would put "100" before "99".
 */
export async function progressIdsCrossADigit(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ n: string }>("SELECT nextval('turn_progress_id_seq')::text AS n");
  const power = 10 ** String(Number(rows[0].n) + 3).length;
  // The turn's first row is power - 1, its second power: any read of more than one row crosses.
  await pool.query("SELECT setval('turn_progress_id_seq', greatest($1::bigint, (SELECT last_value FROM turn_progress_id_seq)))", [power - 2]);
}
