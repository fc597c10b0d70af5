-- 0015: thinking tokens of a run (issue 17, docs/llm.md "Thinking"). The
-- output tokens the model spent thinking, as far as the provider reports
-- them; they are part of output_tokens and priced as output.
ALTER TABLE runs ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
