/**
 * A server secret generated once and kept in the database, so every instance derives
 * the same HMACs. Concurrent first starts race benignly: the first insert wins and
 * everyone reads it back.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../storage/index.ts';

export async function serverSecret(db: Db, name: string): Promise<Buffer> {
  await db.query('insert into app_secrets (name, value) values ($1, $2) on conflict (name) do nothing', [
    name,
    randomBytes(32).toString('base64'),
  ]);
  const { rows } = await db.query<{ value: string }>('select value from app_secrets where name = $1', [name]);
  return Buffer.from(rows[0]!.value, 'base64');
}
