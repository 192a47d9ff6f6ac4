import "server-only";
import type pg from "pg";
import type { ThreadScope, ThreadsChanged, TitleStore } from "./contract";

/**
 * The adapter's titles (see TitleStore): threads.title_source says who set a
 * title (migrations/1733616000000_title-source.sql), and the model's title
 * replaces only the first words of the first message.
 */
export class PostgresTitleStore implements TitleStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly changed: ThreadsChanged = () => {},
  ) {}

  async storeModelTitle({ owner, threadId, title, overModel = false }: ThreadScope & { threadId: string; title: string; overModel?: boolean }): Promise<boolean> {
    // One statement: a rename that committed first has made the row 'user' and
    // this matches nothing; a rename that comes after overwrites it. Neither the
    // activity time nor the order of the sidebar moves: nobody said anything.
    const { rowCount } = await this.pool.query(
      "UPDATE threads SET title = $3, title_source = 'model' WHERE id = $1 AND owner = $2 AND (title_source = 'message' OR ($4 AND title_source = 'model'))",
      [threadId, owner, title, overModel],
    );
    const stored = (rowCount ?? 0) > 0;
    if (stored) this.changed(owner, threadId);
    return stored;
  }
}
