-- Issue 20: a deposit's hold outlasts the platform's reversal window. accepted_at: when the
-- platform first showed the offer accepted (the trade's start of CS2 trade protection);
-- history_read_at: when the bot's trade history was last read in full (GetTradeHistory back 8
-- days). A CS2 deposit's hold ends only once its bot's history has been read past the end of the
-- trade's protection window without a reversal.
alter table steam_offers add column accepted_at timestamptz;
alter table bots add column history_read_at timestamptz;
