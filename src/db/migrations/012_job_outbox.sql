-- The job outbox (issue 12): business transactions no longer call graphile_worker.add_job(s).
--
-- graphile-worker 0.17's add_jobs runs pg_notify('jobs:insert', …) in the caller's transaction. A
-- transaction that has notified takes PostgreSQL's single notify-queue lock at commit and holds it
-- through the commit's WAL flush, so every purchase, status change and webhook scheduling on every
-- instance committed one at a time (no group commit). Now they insert their job specs here (a
-- plain table: no NOTIFY, no shared lock) and a relay (src/jobs/relay.ts) moves committed rows into
-- graphile-worker, a batch per transaction (one add_jobs, so one NOTIFY, per batch in general).
create table job_outbox (
  id bigint generated always as identity primary key,
  task text not null,
  payload json not null,
  queue_name text,
  run_at timestamptz,
  max_attempts smallint,
  job_key text,
  priority smallint,
  -- job_key_mode 'preserve_run_at' (else 'replace'); add_jobs takes the mode per call.
  preserve_run_at boolean not null default false
);

-- Moves up to `max_rows` committed outbox rows into graphile-worker and deletes them, in one
-- transaction (a crash leaves them in the outbox, nothing is lost or added twice). Rows go in id
-- order, so keyed jobs end as if each row had been added directly in that order: a batch handed to
-- one add_jobs holds each job key at most once and one key mode, and a row that breaks either rule
-- starts the next add_jobs. Relays serialise on an advisory lock that only they take, so two
-- instances never move the same key out of order. Answers the number of rows moved.
create function job_outbox_relay(max_rows int) returns int language plpgsql as $$
declare
  r job_outbox;
  batch graphile_worker.job_spec[] := '{}';
  batch_keys text[] := '{}';
  batch_preserve boolean; -- the batch's key mode, null while it has no keyed job
  moved bigint[] := '{}';
begin
  if not exists (select 1 from job_outbox) then
    return 0;
  end if;
  perform pg_advisory_xact_lock(hashtext('job_outbox_relay'));
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
end $$;
