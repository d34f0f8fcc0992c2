-- Redirect flow (spec 2.2, 4.1): an intent is a deposits row with flow 'intent' and status 'new';
-- its hosted page is reached by an unguessable token (>= 128 random bits, base64url).
alter table deposits add column hosted_token text;
alter table deposits add constraint deposits_hosted_token_key unique (hosted_token);
alter table deposits add constraint deposits_intent_has_hosted_token
  check (flow <> 'intent' or hosted_token is not null);
