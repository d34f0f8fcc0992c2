-- Moves up to `max_rows` committed job_outbox rows into graphile-worker and deletes them, in one
-- transaction (a crash leaves them in the outbox, nothing is lost or added twice). Rows go in id
-- order, so keyed jobs end as if each row had been added directly in that order: a batch handed to
-- one add_jobs holds each job key at most once and one key mode, and a row that breaks either rule
-- starts the next add_jobs. Relays serialise on an advisory lock that only they take, so two
-- instances never move the same key out of order. Answers the number of rows moved.
-- A batch that fails (a row graphile-worker's checks refuse) is retried one row at a time, each in
-- its own subtransaction: a refused row is set aside in job_outbox_failed with the error (gauge
-- gateway_job_outbox_failed) instead of blocking the others. The happy path costs one
-- subtransaction per batch.
create or replace function job_outbox_relay(max_rows int) returns int language plpgsql as $$
declare
  r job_outbox;
  batch graphile_worker.job_spec[] := '{}';
  batch_keys text[] := '{}';
  batch_preserve boolean; -- the batch's key mode, null while it has no keyed job
  moved bigint[] := '{}';
  n int := 0;
begin
  if not exists (select 1 from job_outbox) then
    return 0;
  end if;
  -- Outside the block below: the lock is the transaction's whatever happens inside it.
  perform pg_advisory_xact_lock(hashtext('job_outbox_relay'));
  begin
    for r in select * from job_outbox order by id limit max_rows loop
      if r.job_key is not null
         and (r.job_key = any(batch_keys) or (batch_preserve is not null and batch_preserve <> r.preserve_run_at)) then
        perform graphile_worker.add_jobs(batch, coalesce(batch_preserve, false));
        batch := '{}';
        batch_keys := '{}';
        batch_preserve := null;
      end if;
      batch := batch || row(r.task, r.payload, r.queue_name, r.run_at, r.max_attempts, r.job_key, r.priority, null)::graphile_worker.job_spec;
      if r.job_key is not null then
        batch_keys := batch_keys || r.job_key;
        batch_preserve := r.preserve_run_at;
      end if;
      moved := moved || r.id;
    end loop;
    if cardinality(batch) > 0 then
      perform graphile_worker.add_jobs(batch, coalesce(batch_preserve, false));
    end if;
    -- Exactly the rows read: a row with a lower id may commit after the read (ids are taken at insert).
    delete from job_outbox where id = any(moved);
    return cardinality(moved);
  exception when others then
    -- Everything of the block is undone; the same rows one at a time, in id order.
    null;
  end;
  for r in select * from job_outbox order by id limit max_rows loop
    begin
      perform graphile_worker.add_jobs(array[row(r.task, r.payload, r.queue_name, r.run_at, r.max_attempts, r.job_key, r.priority, null)::graphile_worker.job_spec], r.preserve_run_at);
    exception when others then
      insert into job_outbox_failed (id, task, payload, queue_name, run_at, max_attempts, job_key, priority, preserve_run_at, error)
      values (r.id, r.task, r.payload, r.queue_name, r.run_at, r.max_attempts, r.job_key, r.priority, r.preserve_run_at, sqlerrm);
    end;
    delete from job_outbox where id = r.id;
    n := n + 1;
  end loop;
  return n;
end $$;
