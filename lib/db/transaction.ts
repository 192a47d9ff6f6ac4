import "server-only";
import type pg from "pg";

/** Runs `work` in one transaction on a connection of its own: whole or not at all. */
export async function inTransaction<T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    // A connection that cannot even roll back is not given back to the pool.
    await client.query("ROLLBACK").catch((rollback: Error) => void (broken = rollback));
    throw error;
  } finally {
    client.release(broken);
  }
}
