// Test-only fault for the purchase tests: the UPDATE that records a purchase's offer (pending →
// active) fails for the purchases listed in test_fail_record — always (once_seq null) or only the
// first time (once_seq names a sequence, so the count survives the rolled-back transaction).
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';

export async function installRecordFault(db: Db): Promise<void> {
  await sql`create table test_fail_record (purchase_id bigint primary key, once_seq text)`.execute(db);
  await sql`
    create function test_fail_record() returns trigger language plpgsql as $$
    declare plan record;
    begin
      select * into plan from test_fail_record where purchase_id = new.id;
      if found and old.status = 'pending' and new.status = 'active'
         and (plan.once_seq is null or nextval(plan.once_seq) = 1) then
        raise exception 'injected: recording the offer failed';
      end if;
      return new;
    end $$`.execute(db);
  await sql`create trigger test_fail_record before update on purchases for each row execute function test_fail_record()`.execute(db);
}

/** The offer of purchase `id` fails to be recorded: every time, or (with `onceSeq`, a sequence) only once. */
export async function failRecording(db: Db, id: number, onceSeq: string | null = null): Promise<void> {
  await sql`insert into test_fail_record values (${id}, ${onceSeq})`.execute(db);
}
